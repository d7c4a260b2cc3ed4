/** Node names the script driver itself uses (a producer may not take them). */
export const SCRIPT_NODE_NAMES = {
  coordinator: "coordinator",
  harness: "harness",
  reader: "reader",
  script: "script",
} as const;

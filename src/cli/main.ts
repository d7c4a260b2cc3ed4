#!/usr/bin/env node
// The signal handlers come first, before the modules of the command line load (a few hundred ms):
// a Ctrl-C in that time is kept and honoured by the command, instead of killing the process.
import { installSignalHandlers } from "./interrupt.js";

installSignalHandlers();
const { main } = await import("./process-main.js");
await main(process.argv);

import { parentPort, workerData } from "node:worker_threads";
import { type AfterCampaignInput, afterCampaign } from "./after-campaign.js";

// A worker thread of afterCampaignOnWorker: does the work and hands the result back.
parentPort?.postMessage(afterCampaign(workerData as AfterCampaignInput));

// What netspeed's page (ui/) shares with the speedtest role: the shapes of the API's answers.
export type { SpeedtestInfo, UploadResult } from './site/protocol.js';

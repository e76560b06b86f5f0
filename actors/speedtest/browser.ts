// What netspeed's page (ui/) shares with the speedtest role: the shapes of the API's answers, and the
// grades for streaming, gaming and calls, which the page, the client and the server compute alike.
export type { SpeedtestInfo, UploadResult } from './site/protocol.js';
export type { ResultInput, SavedAnswer, SavedResult } from './site/result.js';
export { gradedLatencyMs, gradeUses, lossPercent, pingLostAfterMs, uses, type Use, type UseGrade, type UseGrades } from './site/grades.js';

export * from './recording-schema';
export { importRecording, MAX_IMPORTED_STEPS, type ImportedRecording } from './import-recording';
export { exportRecording, type ExportedRecording } from './export-recording';

/** The demo world's own records, and TMDB's paths answered from them. */
export { RecordCatalog, DemoRecords } from "./catalog";
export { TmdbRecordSet } from "./tmdb-record-set";

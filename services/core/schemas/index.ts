export { SEARCH_LIMITS, SearchParameters, SearchHit, SearchResponse, MatchType, TotalRelation } from './search.ts';
export { DocumentIdParams, DocumentRecord } from './documents.ts';
export { SourceSummary, SourcesResponse, StatsResponse, API_VERSION, DOCUMENT_SCHEMA_VERSION } from './collection.ts';
export { ValidationError, HTTPValidationError, ErrorResponse } from './errors.ts';
export { DocumentTypeSchema, DOCUMENT_ID_PATTERN, laxInt } from './common.ts';

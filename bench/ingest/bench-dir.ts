import { fileURLToPath } from 'node:url'

/**
 * Everything the ingestion benchmark makes and keeps (generated chains, its PostgreSQL cluster, the
 * Ponder install), outside git. Other benchmarks keep theirs beside it under .wds-bench/.
 */
export const BENCH_DIR = fileURLToPath(new URL('../../.wds-bench/ingest/', import.meta.url))

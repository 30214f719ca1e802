import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createLogger } from '../../src/lib/logger.ts'
import { MIGRATIONS_DIR, migrate, readMigrations } from '../../src/store/migrate.ts'
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts'

let database: TestDatabase
let dir: string
let example: string
let broken: string
const logger = createLogger('silent')

beforeAll(async () => {
  database = await createTestDatabase()
  dir = await mkdtemp(join(tmpdir(), 'wds-migrations-'))
  await cp(MIGRATIONS_DIR, dir, { recursive: true })
  const next = (await readMigrations()).length + 1
  example = `${String(next).padStart(4, '0')}_example.sql`
  broken = `${String(next + 1).padStart(4, '0')}_broken.sql`
})
afterAll(async () => {
  await database.drop()
  await rm(dir, { recursive: true, force: true })
})

/** A fresh database with the migrations before `version` applied (an upgrade's starting point). */
async function migratedBefore(version: string): Promise<TestDatabase> {
  const upgraded = await createTestDatabase({ migrated: false })
  const before = await mkdtemp(join(tmpdir(), 'wds-migrations-'))
  try {
    for (const name of (await readMigrations()).map((m) => m.name).filter((n) => n < version)) {
      await cp(join(MIGRATIONS_DIR, name), join(before, name))
    }
    await migrate(upgraded.db, logger, before)
    return upgraded
  } finally {
    await rm(before, { recursive: true, force: true })
  }
}

test('migrate() applies only new migrations, each once, also when run concurrently', async () => {
  await writeFile(join(dir, example), 'CREATE TABLE examples (id int PRIMARY KEY);')
  const runs = await Promise.all([migrate(database.db, logger, dir), migrate(database.db, logger, dir)])
  expect(runs.map((r) => r.applied).sort()).toEqual([[], [example]])
  expect((await migrate(database.db, logger, dir)).applied).toEqual([])
})

test('migrate() refuses a migration whose text changed after it was applied', async () => {
  await writeFile(join(dir, example), 'CREATE TABLE examples (id bigint PRIMARY KEY);')
  await expect(migrate(database.db, logger, dir)).rejects.toThrow(
    `migration ${example} changed after it was applied; migrations are append-only: add a new one`,
  )
})

test('migrate() rolls a failing migration back whole', async () => {
  await writeFile(join(dir, example), 'CREATE TABLE examples (id int PRIMARY KEY);')
  await writeFile(join(dir, broken), 'CREATE TABLE half_done (id int); SELECT no_such_function();')
  await expect(migrate(database.db, logger, dir)).rejects.toThrow(/no_such_function/)
  const { rows } = await database.db.query(
    "SELECT to_regclass('half_done') AS t, (SELECT max(version) FROM schema_migrations) AS v",
  )
  expect(rows[0]).toEqual({ t: null, v: Number(example.slice(0, 4)) })
})

test('0005 keeps the wallet-history indexes of chains indexed before it, per partition', async () => {
  const upgraded = await migratedBefore('0005')
  try {
    await upgraded.db.query("CREATE TABLE transfers_base PARTITION OF transfers FOR VALUES IN ('base')")
    await upgraded.db.query("INSERT INTO chain_states (chain, indexed_from, indexed_block) VALUES ('base', 0, 10)")
    await migrate(upgraded.db, logger)
    const { rows } = await upgraded.db.query(
      `SELECT (SELECT array_agg(indexname::text ORDER BY indexname) FROM pg_indexes WHERE tablename = 'transfers_base') AS indexes,
              (SELECT history_indexed_at IS NOT NULL FROM chain_states WHERE chain = 'base') AS built`,
    )
    expect(rows[0]).toEqual({
      indexes: [
        'transfers_base_block_number_idx',
        'transfers_base_by_from',
        'transfers_base_by_to',
        'transfers_base_by_to_token',
        'transfers_base_expr_idx',
      ],
      built: true,
    })
  } finally {
    await upgraded.drop()
  }
})

test('0019 moves the outputs to their chain’s partition, with the address indexes of a chain whose history is served', async () => {
  const upgraded = await migratedBefore('0019')
  try {
    await upgraded.db.query(
      `INSERT INTO chain_states (chain, indexed_from, indexed_block, history_indexed_at) VALUES ('bitcoin', 0, 10, now());
       INSERT INTO outputs (chain, tx_hash, output_index, block_number, tx_index, address, value, spent_tx_hash, spent_block_number, spent_tx_index, spent_input_index)
       VALUES ('bitcoin', 'aa', 0, 1, 0, 'bc1qa', 5000000000, 'bb', 2, 1, 0), ('bitcoin', 'bb', 0, 2, 1, 'bc1qb', 4999990000, NULL, NULL, NULL, NULL)`,
    )
    await migrate(upgraded.db, logger)
    const { rows } = await upgraded.db.query(
      `SELECT (SELECT array_agg(indexname::text ORDER BY indexname) FROM pg_indexes WHERE tablename = 'outputs_bitcoin') AS indexes,
              (SELECT array_agg(tx_hash || ':' || coalesce(spent_tx_hash, '-') ORDER BY tx_hash) FROM outputs_bitcoin) AS rows,
              to_regclass('outputs_0017') AS old`,
    )
    expect(rows[0]).toEqual({
      indexes: [
        'outputs_bitcoin_block_number_idx',
        'outputs_bitcoin_by_address',
        'outputs_bitcoin_by_spending_tx',
        'outputs_bitcoin_pkey',
        'outputs_bitcoin_spent_block_number_idx',
        'outputs_bitcoin_spent_by_address',
      ],
      rows: ['aa:bb', 'bb:-'],
      old: null,
    })
  } finally {
    await upgraded.drop()
  }
})

test('0024 packs every partition’s hashes and addresses, keeps each one’s indexes, and the balance checkpoints’ keys', async () => {
  const upgraded = await migratedBefore('0024')
  try {
    const evm = ['0x742d35cc6634c0532925a3b844bc454e4438f44e', '0x00000000219ab540356cbb839cbe05303d7705fa']
    const hash = `0x${'ab'.repeat(32)}`
    await upgraded.db.query(
      `CREATE TABLE transfers_base PARTITION OF transfers FOR VALUES IN ('base');
       CREATE INDEX transfers_base_by_from ON transfers_base (from_address, block_number DESC, tx_index DESC, seq DESC);
       CREATE INDEX transfers_base_by_to ON transfers_base (to_address, block_number DESC, tx_index DESC, seq DESC);
       CREATE TABLE transfers_cardano PARTITION OF transfers FOR VALUES IN ('cardano');
       CREATE UNIQUE INDEX transfers_cardano_by_record ON transfers_cardano (tx_hash, seq);
       CREATE INDEX transfers_cardano_by_from ON transfers_cardano (from_address, block_number DESC, tx_index DESC, seq DESC);
       CREATE INDEX transfers_cardano_by_to ON transfers_cardano (to_address, block_number DESC, tx_index DESC, seq DESC);
       CREATE TABLE transfers_bitcoin PARTITION OF transfers FOR VALUES IN ('bitcoin');`,
    )
    await upgraded.db.query(
      `INSERT INTO transfers (chain, block_number, block_time, tx_index, seq, tx_hash, type, from_address, to_address, value,
         contract_address, token_id, log_index, batch_index, operator, counterparties) VALUES
       ('base', 7, '2024-01-01', 2, 5, $3, 'erc1155', $1, $2, 12, $2, 9, 4, 1, $1, NULL),
       ('base', 7, '2024-01-01', 2, 0, $3, 'fee', $1, NULL, 21000, NULL, NULL, NULL, NULL, NULL, NULL),
       ('cardano', 9, '2024-01-02', 0, 0, 'ff00', 'native', 'addr1qx2fxv2umyhttkxyxp8x0dlpdt3k6cwng', NULL, 5, NULL, NULL, NULL, NULL, NULL,
        '[{"address": "addr1q9", "value": "5"}]'),
       ('bitcoin', 3, '2024-01-03', 1, 0, 'e3b0c442', 'native', NULL, 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080', 50, NULL, NULL, NULL, NULL, NULL, NULL)`,
      [evm[0], evm[1], hash],
    )
    await upgraded.db.query(
      `INSERT INTO balance_checkpoints VALUES ('base', $1, '', 7, -21000), ('base', $2, $2, 7, 12);
       INSERT INTO balance_hot_checkpoints VALUES ('base', $1, '', 8, 1);
       INSERT INTO balance_checkpoint_heights VALUES ('base', 7, 0, true, ARRAY[$1, $2], 2, 2), ('base', 8, 0, false, NULL, 1, 1),
         ('optimism', 7, 0, true, '{}', 0, 0)`
        .replaceAll('$1', `'${evm[0]}'`)
        .replaceAll('$2', `'${evm[1]}'`),
    )
    const read = async () =>
      (
        await upgraded.db.query(
          `SELECT chain, block_number, tx_index, seq, wds_unpack(tx_hash) AS tx_hash, type, wds_unpack(from_address) AS "from",
                  wds_unpack(to_address) AS "to", value::text, wds_unpack(contract_address) AS contract, token_id::text,
                  log_index, batch_index, wds_unpack(operator) AS operator, counterparties
             FROM transfers ORDER BY chain, seq`,
        )
      ).rows
    const rowsBefore = (
      await upgraded.db.query(
        `SELECT chain, block_number, tx_index, seq, tx_hash, type, from_address AS "from", to_address AS "to", value::text,
                contract_address AS contract, token_id::text, log_index, batch_index, operator, counterparties
           FROM transfers ORDER BY chain, seq`,
      )
    ).rows
    await upgraded.db.query('CREATE FUNCTION wds_unpack(text) RETURNS text LANGUAGE sql AS $$ SELECT $1 $$')
    expect(await read()).toEqual(rowsBefore)
    await upgraded.db.query('DROP FUNCTION wds_unpack(text)')

    await migrate(upgraded.db, logger)
    expect(await read()).toEqual(rowsBefore)
    const { rows } = await upgraded.db.query(
      `SELECT (SELECT array_agg(tablename || ' ' || indexname ORDER BY tablename, indexname) FROM pg_indexes
                WHERE tablename LIKE 'transfers%') AS indexes,
              (SELECT array_agg(relname::text ORDER BY relname) FROM pg_class WHERE relname LIKE '%\\_text%') AS leftovers,
              (SELECT array_agg(wds_unpack(address) || ' ' || wds_unpack(asset) || ' ' || delta ORDER BY delta)
                 FROM balance_checkpoints) AS full,
              (SELECT array_agg(wds_unpack(address) || ' ' || wds_unpack(asset) || ' ' || delta) FROM balance_hot_checkpoints) AS hot,
              (SELECT array_agg(chain || block_number || ':' || CASE WHEN tracked IS NULL THEN 'null'
                                ELSE array_to_string(ARRAY(SELECT wds_unpack(a) FROM unnest(tracked) a), ',') END
                                ORDER BY chain, block_number) FROM balance_checkpoint_heights) AS tracked`,
    )
    expect(rows[0]).toEqual({
      indexes: [
        'transfers transfers_by_block',
        'transfers transfers_by_block_range',
        'transfers_base transfers_base_block_number_idx',
        'transfers_base transfers_base_by_from',
        'transfers_base transfers_base_by_to',
        'transfers_base transfers_base_by_to_token',
        'transfers_base transfers_base_expr_idx',
        'transfers_bitcoin transfers_bitcoin_block_number_idx',
        'transfers_bitcoin transfers_bitcoin_expr_idx',
        'transfers_cardano transfers_cardano_block_number_idx',
        'transfers_cardano transfers_cardano_by_from',
        'transfers_cardano transfers_cardano_by_record',
        'transfers_cardano transfers_cardano_by_to',
        'transfers_cardano transfers_cardano_by_to_token',
        'transfers_cardano transfers_cardano_expr_idx',
      ],
      leftovers: null,
      full: [`${evm[0]}  -21000`, `${evm[1]} ${evm[1]} 12`],
      hot: [`${evm[0]}  1`],
      tracked: [`base7:${evm[0]},${evm[1]}`, 'base8:null', 'optimism7:'],
    })
    // the wallet query reads the packed index
    const plan = await upgraded.db.query(
      `EXPLAIN SELECT * FROM transfers WHERE chain = 'base' AND to_address = wds_pack($1) ORDER BY block_number DESC LIMIT 1`,
      [evm[1]],
    )
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/transfers_base_by_to|Seq Scan/)
  } finally {
    await upgraded.drop()
  }
})

test('0029 gives a served partition its token-receipts index, used by a wallet’s first receipts of a token, and leaves a backfilling one alone', async () => {
  const upgraded = await migratedBefore('0029')
  try {
    // base is served (its history indexes built); optimism is in its first backfill (none yet)
    await upgraded.db.query(
      `CREATE TABLE transfers_base PARTITION OF transfers FOR VALUES IN ('base');
       CREATE INDEX transfers_base_by_from ON transfers_base (from_address, block_number DESC, tx_index DESC, seq DESC);
       CREATE INDEX transfers_base_by_to ON transfers_base (to_address, block_number DESC, tx_index DESC, seq DESC);
       CREATE TABLE transfers_optimism PARTITION OF transfers FOR VALUES IN ('optimism');`,
    )
    // the wallet received 5,000 records of one token and none of another
    await upgraded.db.query(
      `INSERT INTO transfers (chain, block_number, block_time, tx_index, seq, tx_hash, type, from_address, to_address, value,
         contract_address, token_id, log_index, batch_index, operator, counterparties)
       SELECT 'base', n, '2024-01-01', 0, 0, wds_pack('0x' || lpad(to_hex(n), 64, '0')), 'erc20',
              wds_pack('0x' || lpad(to_hex(n % 97 + 4096), 40, '0')), wds_pack('0x' || repeat('aa', 20)), 1,
              wds_pack('0x' || repeat('c1', 20)), NULL, 0, 0, NULL, NULL
       FROM generate_series(1, 5000) AS n`,
    )
    await migrate(upgraded.db, logger)
    await upgraded.db.query('ANALYZE transfers_base')
    const { rows } = await upgraded.db.query(
      `SELECT array_agg(tablename || ' ' || indexname ORDER BY tablename, indexname) AS indexes FROM pg_indexes
       WHERE tablename IN ('transfers_base', 'transfers_optimism') AND indexname LIKE '%by_to%'`,
    )
    expect(rows[0]).toEqual({ indexes: ['transfers_base transfers_base_by_to', 'transfers_base transfers_base_by_to_token'] })
    const plan = await upgraded.db.query(
      `EXPLAIN SELECT block_number FROM transfers WHERE chain = 'base' AND to_address = wds_pack($1)
         AND contract_address = wds_pack($2) ORDER BY block_number, tx_index, seq LIMIT 20`,
      [`0x${'aa'.repeat(20)}`, `0x${'c2'.repeat(20)}`],
    )
    expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/transfers_base_by_to_token/)
  } finally {
    await upgraded.drop()
  }
})

test('0030 fills the paid addresses from the history written before it: signed payments only, each with its first block', async () => {
  const upgraded = await migratedBefore('0030')
  try {
    const [wallet, paid, unsigned, other] = ['aa', 'bb', 'cc', 'dd'].map((b) => `0x${b.repeat(20)}`)
    // block 3: a token payment with the wallet's fee; block 5: the same again and a native send; block
    // 6: a token transfer out of the wallet without its fee (not signed), a zero-value one, a fee
    await upgraded.db.query("CREATE TABLE transfers_base PARTITION OF transfers FOR VALUES IN ('base')")
    await upgraded.db.query(
      `INSERT INTO transfers (chain, block_number, block_time, tx_index, seq, tx_hash, type, from_address, to_address, value, contract_address)
       SELECT 'base', b, '2024-01-01', x, s, wds_pack('0x' || lpad(to_hex(b * 100 + x), 64, '0')), t, wds_pack(f), wds_pack(r), v, wds_pack(c)
       FROM (VALUES (3, 0, 0, 'erc20', $1::text, $2::text, 5, $4::text), (3, 0, 1, 'fee', $1, NULL, 9, NULL),
                    (5, 0, 0, 'erc20', $1, $2, 5, $4), (5, 0, 1, 'fee', $1, NULL, 9, NULL), (5, 1, 0, 'native', $1, $4, 2, NULL),
                    (6, 0, 0, 'erc20', $1, $3, 5, $4), (6, 1, 0, 'erc20', $1, $4, 0, $4), (6, 1, 1, 'fee', $1, NULL, 9, NULL))
         AS r(b, x, s, t, f, r, v, c)`,
      [wallet, paid, unsigned, other],
    )
    await migrate(upgraded.db, logger)
    const { rows } = await upgraded.db.query(
      `SELECT chain, wds_unpack(wallet) AS wallet, address, first_block::int AS "firstBlock" FROM paid_addresses ORDER BY address`,
    )
    expect(rows).toEqual([
      { chain: 'base', wallet, address: paid, firstBlock: 3 },
      { chain: 'base', wallet, address: other, firstBlock: 5 },
    ])
  } finally {
    await upgraded.drop()
  }
})

test('0031 gives every partition, those stored before it too, a btree on block_number + 0 beside the BRIN index: a block range reads it, a wallet page does not', async () => {
  const upgraded = await migratedBefore('0031')
  try {
    await upgraded.db.query("CREATE TABLE transfers_base PARTITION OF transfers FOR VALUES IN ('base')")
    await migrate(upgraded.db, logger)
    await upgraded.db.query("CREATE TABLE transfers_optimism PARTITION OF transfers FOR VALUES IN ('optimism')")
    const { rows } = await upgraded.db.query(
      `SELECT c.relname AS index, am.amname AS method, pg_get_indexdef(c.oid) LIKE '%(block_number + 0)%' AS "blockRange"
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
        WHERE i.indrelid IN ('transfers'::regclass, 'transfers_base'::regclass, 'transfers_optimism'::regclass)
        ORDER BY c.relname`,
    )
    expect(rows).toEqual([
      { index: 'transfers_base_block_number_idx', method: 'brin', blockRange: false },
      { index: 'transfers_base_expr_idx', method: 'btree', blockRange: true },
      { index: 'transfers_by_block', method: 'brin', blockRange: false },
      { index: 'transfers_by_block_range', method: 'btree', blockRange: true },
      { index: 'transfers_optimism_block_number_idx', method: 'brin', blockRange: false },
      { index: 'transfers_optimism_expr_idx', method: 'btree', blockRange: true },
    ])
    // a balance checkpoint's rows: the blocks of a range, found through the btree (not the whole table read)
    const range = await upgraded.db.query(
      `EXPLAIN (FORMAT JSON) SELECT value FROM transfers_base WHERE block_number + 0 > 10 AND block_number + 0 <= 20`,
    )
    expect(JSON.stringify(range.rows[0])).toContain('transfers_base_expr_idx')
    // the newest rows of a wallet in block order: never a walk of the chain along that btree
    const page = await upgraded.db.query(
      `EXPLAIN (FORMAT JSON) SELECT value FROM transfers_base WHERE to_address = '\\x01' ORDER BY block_number DESC LIMIT 100`,
    )
    expect(JSON.stringify(page.rows[0])).not.toContain('transfers_base_expr_idx')
  } finally {
    await upgraded.drop()
  }
})

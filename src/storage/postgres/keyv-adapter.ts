/**
 * @keyv/postgres with a connection pool of its own. The stock adapter keeps one pg.Pool per URL for the
 * whole process (closing one store ends every other store's pool) and attaches no 'error' listener to
 * it, so when PostgreSQL restarts, an idle connection's error becomes an unhandled 'error' event that
 * kills the process. Here each adapter owns its pool and passes pool errors on as adapter 'error'
 * events, which the backend logs; the next query reconnects.
 */
import pg from 'pg';
import KeyvPostgres, { type KeyvPostgresOptions } from '@keyv/postgres';

/** KeyvPostgres whose pool belongs to this adapter alone and reports its errors as adapter events. */
export class OwnPoolKeyvPostgres extends KeyvPostgres {
  // `declare`: no class-field initializer, because the base constructor calls connect() before
  // subclass fields would be initialized and an initializer would then wipe the pool it made.
  declare private ownPool: pg.Pool | undefined;

  constructor(options: KeyvPostgresOptions) {
    super(options);
  }

  /** The pool this adapter queries through (set once `connect` has run, which the constructor starts). */
  get pool(): pg.Pool | undefined {
    return this.ownPool;
  }

  override async connect(): Promise<(sql: string, values?: unknown[]) => Promise<any[]>> {
    const { uri, ...rest } = this.opts;
    const pool = new pg.Pool({ ...rest, connectionString: uri });
    pool.on('error', (error) => this.emit('error', error));
    this.ownPool = pool;
    return async (sql, values) => (await pool.query(sql, values)).rows;
  }

  override async disconnect(): Promise<void> {
    const pool = this.ownPool;
    this.ownPool = undefined;
    await pool?.end();
  }
}

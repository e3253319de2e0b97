package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/clipperhq/terraform-provider-clipper/internal/service/masterkey"
)

// migration is one step of the schema: SQL, a Go function (for a step that
// must decode old data), or both, SQL first. All of it runs in one
// transaction.
//
// The store runs on SQLite and on PostgreSQL. A fresh PostgreSQL database
// starts at version postgresBase with schemaPostgres (schema_postgres.go),
// so the steps up to it are SQLite's alone. Every migration after it needs
// its PostgreSQL counterpart in postgres (the same change in PostgreSQL's
// DDL: BIGINT for integers, DOUBLE PRECISION, BYTEA, TEXT COLLATE "C"),
// and its apply, which runs on both engines, writes SQL both accept
// (dialect.go); TestMigrationsHavePostgresCounterparts holds to it.
type migration struct {
	sql      string
	postgres string
	apply    func(context.Context, *sql.Tx) error
	// applySealed is an apply that seals secrets with the store's master key.
	applySealed func(context.Context, *sql.Tx, *masterkey.Key) error
	// vacuum runs after the migration, outside its transaction: it
	// removed secrets whose bytes must not stay in freed pages.
	vacuum []string
}

// migrations are applied in order, each once; append, never edit.
var migrations = []migration{
	// 1: the core.
	{sql: `CREATE TABLE api_keys (
		key TEXT PRIMARY KEY,
		org_id TEXT NOT NULL,
		user_id TEXT NOT NULL,
		created_at TEXT NOT NULL,
		seq INTEGER NOT NULL
	);
	CREATE INDEX api_keys_org ON api_keys(org_id, seq);
	CREATE TABLE projects (
		id TEXT PRIMARY KEY,
		org_id TEXT NOT NULL,
		stage TEXT NOT NULL,
		created_at TEXT NOT NULL,
		data TEXT NOT NULL
	);
	CREATE INDEX projects_org_stage ON projects(org_id, stage);
	CREATE INDEX projects_stage ON projects(stage);
	CREATE TABLE clips (
		id TEXT PRIMARY KEY,
		project_id TEXT NOT NULL,
		org_id TEXT NOT NULL,
		seq INTEGER NOT NULL,
		data TEXT NOT NULL
	);
	CREATE INDEX clips_project ON clips(project_id, seq);
	CREATE TABLE uploads (
		id TEXT PRIMARY KEY,
		org_id TEXT NOT NULL,
		user_id TEXT NOT NULL,
		session_id TEXT NOT NULL DEFAULT '',
		path TEXT NOT NULL,
		total INTEGER NOT NULL DEFAULT -1,
		received INTEGER NOT NULL DEFAULT 0,
		complete INTEGER NOT NULL DEFAULT 0,
		created_at TEXT NOT NULL
	);
	CREATE INDEX uploads_session ON uploads(session_id);
	CREATE TABLE credits (
		org_id TEXT NOT NULL,
		month TEXT NOT NULL,
		used INTEGER NOT NULL,
		PRIMARY KEY (org_id, month)
	);
	CREATE TABLE deliveries (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		project_id TEXT NOT NULL,
		kind TEXT NOT NULL,
		target TEXT NOT NULL,
		body TEXT NOT NULL,
		attempts INTEGER NOT NULL DEFAULT 0,
		next_at TEXT NOT NULL,
		status TEXT NOT NULL,
		last_error TEXT NOT NULL DEFAULT '',
		created_at TEXT NOT NULL
	);
	CREATE INDEX deliveries_due ON deliveries(status, next_at);
	CREATE TABLE brand_templates (
		id TEXT PRIMARY KEY,
		org_id TEXT NOT NULL,
		data TEXT NOT NULL
	);
	CREATE INDEX brand_templates_org ON brand_templates(org_id);`},
	// 2: connected social accounts.
	{sql: `CREATE TABLE social_accounts (
		post_account_id TEXT PRIMARY KEY,
		org_id TEXT NOT NULL,
		platform TEXT NOT NULL,
		created_at TEXT NOT NULL,
		data TEXT NOT NULL
	);
	CREATE INDEX social_accounts_org ON social_accounts(org_id, platform);`},
	// 3: collections of clips. seq keeps creation order for paging; a
	// content's seq keeps the order clips were added in (export order).
	{sql: `CREATE TABLE collections (
		seq INTEGER PRIMARY KEY AUTOINCREMENT,
		id TEXT NOT NULL UNIQUE,
		org_id TEXT NOT NULL,
		name TEXT NOT NULL,
		created_at TEXT NOT NULL,
		updated_at TEXT NOT NULL
	);
	CREATE INDEX collections_org ON collections(org_id, seq);
	CREATE TABLE collection_contents (
		collection_id TEXT NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
		content_id TEXT NOT NULL,
		seq INTEGER NOT NULL,
		PRIMARY KEY (collection_id, content_id)
	);
	CREATE INDEX collection_contents_order ON collection_contents(collection_id, seq);
	CREATE INDEX collection_contents_content ON collection_contents(content_id);`},
	// 4: projects, clips, social accounts and brand templates in columns of
	// their own instead of JSON of the API's shape (schema_v4.go).
	{sql: schemaV4, apply: migrateRecordsToColumns},
	// 5: social copy jobs. The cache index serves the lookup of an earlier
	// result for the same request; the status index the restart's look for
	// jobs still RUNNING.
	{sql: `CREATE TABLE social_copy_jobs (
		id TEXT PRIMARY KEY,
		org_id TEXT NOT NULL,
		project_id TEXT NOT NULL,
		clip_id TEXT NOT NULL,
		post_account_id TEXT NOT NULL,
		sub_account_id TEXT NOT NULL,
		prompt TEXT NOT NULL,
		platform TEXT NOT NULL,
		status TEXT NOT NULL,
		cached INTEGER NOT NULL,
		title TEXT NOT NULL,
		description TEXT NOT NULL,
		hashtags TEXT NOT NULL,
		error TEXT NOT NULL,
		clip_version TEXT NOT NULL,
		created_at TEXT NOT NULL,
		updated_at TEXT NOT NULL
	);
	CREATE INDEX social_copy_jobs_cache ON social_copy_jobs(org_id, project_id, clip_id, post_account_id, sub_account_id, prompt, status);
	CREATE INDEX social_copy_jobs_status ON social_copy_jobs(status, created_at);`},
	// 6: publishing. Each connected account publishes to a destination
	// ("dir" or "webhook:URL"); a post is one publication of a clip, made by
	// a post task or by a schedule when it fires (schedule_id is unique, so a
	// schedule makes one post at most).
	{sql: `ALTER TABLE social_accounts ADD COLUMN publish_to TEXT NOT NULL DEFAULT 'dir';
	CREATE TABLE publish_schedules (
		id TEXT PRIMARY KEY,
		org_id TEXT NOT NULL,
		project_id TEXT NOT NULL,
		clip_id TEXT NOT NULL,
		post_account_id TEXT NOT NULL,
		sub_account_id TEXT NOT NULL,
		title TEXT NOT NULL,
		description TEXT NOT NULL,
		privacy TEXT NOT NULL,
		media_type TEXT NOT NULL,
		publish_at TEXT NOT NULL,
		status TEXT NOT NULL,
		post_id TEXT,
		created_at TEXT NOT NULL
	);
	CREATE INDEX publish_schedules_due ON publish_schedules(status, publish_at);
	CREATE TABLE posts (
		id TEXT PRIMARY KEY,
		org_id TEXT NOT NULL,
		project_id TEXT NOT NULL,
		clip_id TEXT NOT NULL,
		post_account_id TEXT NOT NULL,
		sub_account_id TEXT NOT NULL,
		title TEXT NOT NULL,
		description TEXT NOT NULL,
		privacy TEXT NOT NULL,
		media_type TEXT NOT NULL,
		platform TEXT NOT NULL,
		publish_to TEXT NOT NULL,
		schedule_id TEXT UNIQUE,
		credits_charged INTEGER NOT NULL,
		status TEXT NOT NULL,
		attempts INTEGER NOT NULL,
		next_at TEXT NOT NULL,
		last_error TEXT NOT NULL,
		published_at TEXT,
		location TEXT NOT NULL,
		created_at TEXT NOT NULL
	);
	CREATE INDEX posts_due ON posts(status, next_at);`},
	// 7: transcripts. One row per recognised word of a project's processed
	// span, in spoken order; times in milliseconds of the source.
	{sql: `CREATE TABLE transcript_words (
		project_id TEXT NOT NULL,
		seq INTEGER NOT NULL,
		word TEXT NOT NULL,
		start_ms INTEGER NOT NULL,
		end_ms INTEGER NOT NULL,
		confidence REAL NOT NULL,
		PRIMARY KEY (project_id, seq)
	);`},
	// 8: censor jobs. A job is QUEUED, then PROCESSING while the censor
	// worker renders, then CONCLUDED or FAILED with error; the worker runs
	// the QUEUED and PROCESSING ones it finds at start again.
	{sql: `CREATE TABLE censor_jobs (
		id TEXT PRIMARY KEY,
		org_id TEXT NOT NULL,
		project_id TEXT NOT NULL,
		clip_id TEXT NOT NULL,
		beep INTEGER NOT NULL,
		status TEXT NOT NULL,
		error TEXT NOT NULL,
		words INTEGER NOT NULL,
		created_at TEXT NOT NULL,
		updated_at TEXT NOT NULL
	);
	CREATE INDEX censor_jobs_status ON censor_jobs(status, created_at);`},
	// 9: storage lifecycle. The janitor finds old uploads by creation and
	// projects by expiry; an org's storage is summed over its uploads, and an
	// upload is "used" when a project names it as its source.
	{sql: `CREATE INDEX uploads_created ON uploads(created_at);
	CREATE INDEX uploads_org ON uploads(org_id);
	CREATE INDEX projects_source ON projects(source_id);
	CREATE INDEX projects_storage_expire ON projects(storage_expire_at);`},
	// 10: the per-key rate windows: the times (Unix nanoseconds, oldest
	// first, space-separated) of a key's requests allowed in the last
	// minute, so a restart does not give that minute's budget again.
	{sql: `CREATE TABLE rate_windows (
		api_key TEXT PRIMARY KEY,
		times TEXT NOT NULL
	);`},
	// 11: the key that signs media addresses: one row, made at first use,
	// replaced by `clipperd media-key rotate` (which voids every link).
	{sql: `CREATE TABLE media_keys (
		id INTEGER PRIMARY KEY CHECK (id = 1),
		secret BLOB NOT NULL,
		created_at TEXT NOT NULL
	);`},
	// 12: gallery sessions, server-side so logging out ends one: the
	// SHA-256 of the cookie's random id (a stolen database holds no
	// usable cookie), the key it was opened with, its org and expiry.
	{sql: `CREATE TABLE gallery_sessions (
		id_hash TEXT PRIMARY KEY,
		api_key TEXT NOT NULL,
		org_id TEXT NOT NULL,
		expires_at TEXT NOT NULL
	);
	CREATE INDEX gallery_sessions_key ON gallery_sessions(api_key);
	CREATE INDEX gallery_sessions_expires ON gallery_sessions(expires_at);`},
	// 13: the gallery's project list (an org's, newest first) and its
	// schedules by status (an org's, by publish time).
	{sql: `CREATE INDEX projects_org_created ON projects(org_id, created_at);
	CREATE INDEX publish_schedules_org_status ON publish_schedules(org_id, status, publish_at);`},
	// 14: whether a project uses an upload is asked by (source_id, org_id);
	// without both columns in one index SQLite (never ANALYZEd) preferred
	// projects_org_created and scanned the org's projects for every upload.
	{sql: `DROP INDEX projects_source;
	CREATE INDEX projects_source_org ON projects(source_id, org_id);`},
	// 15: media named by blob keys relative to the data directory, and
	// clip addresses relative to the public URL, instead of absolute paths
	// and addresses, so a data directory moved, restored or served at
	// another address keeps its media (schema_v15.go).
	{apply: migrateToRelativeMedia},
	// 16: the bytes a post's published copy of its clip adds to its org's
	// storage (0 where the copy shares the clip's bytes, the clip's size
	// reserved while a copying post is pending), summed per org.
	{sql: `ALTER TABLE posts ADD COLUMN storage_size INTEGER NOT NULL DEFAULT 0;
	CREATE INDEX posts_org_storage ON posts(org_id, storage_size);
	CREATE INDEX posts_project ON posts(project_id);`,
		postgres: `ALTER TABLE posts ADD COLUMN storage_size BIGINT NOT NULL DEFAULT 0;
	CREATE INDEX posts_org_storage ON posts(org_id, storage_size);
	CREATE INDEX posts_project ON posts(project_id);`},
	// 17: pipeline runs on the job system: the token of a project's run,
	// raised by each requeue so a stale run writes nothing, and the lease
	// of the run holding it, renewed by its heartbeat (runs.go).
	{sql: `ALTER TABLE projects ADD COLUMN run_token INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE projects ADD COLUMN lease_until TEXT;
	CREATE INDEX projects_lease ON projects(stage, lease_until);`,
		postgres: `ALTER TABLE projects ADD COLUMN run_token BIGINT NOT NULL DEFAULT 0;
	ALTER TABLE projects ADD COLUMN lease_until TEXT COLLATE "C";
	CREATE INDEX projects_lease ON projects(stage, lease_until);`},
	// 18: the size and SHA-256 of each render, recorded when it is stored,
	// so a cut or altered file is refused before it is served whole or
	// published (media_sums.go). By blob key: a censored clip replaces its
	// files under the same keys, and captions have keys but no clip row.
	{sql: `CREATE TABLE media_sums (
		key TEXT PRIMARY KEY,
		size INTEGER NOT NULL,
		sha256 TEXT NOT NULL
	);`, postgres: `CREATE TABLE media_sums (
		key TEXT COLLATE "C" PRIMARY KEY,
		size BIGINT NOT NULL,
		sha256 TEXT COLLATE "C" NOT NULL
	);`},
	// 19: no secret in the clear: API keys as their SHA-256, a prefix and
	// a copy sealed with the master key; sessions and rate windows name a
	// key by its hash; the media key sealed (schema_sealed.go).
	{sql: sealedSecretsSQLite, postgres: sealedSecretsPostgres, applySealed: migrateToSealedSecrets,
		vacuum: []string{"media_keys", "rate_windows"}},
	// 20: the b-roll libraries: each org's pictures (blob.BrollKey), their
	// keywords and what a probe found (broll.go).
	{sql: `CREATE TABLE broll (
		id TEXT PRIMARY KEY,
		org_id TEXT NOT NULL,
		name TEXT NOT NULL,
		media_key TEXT NOT NULL,
		keywords TEXT NOT NULL,
		still INTEGER NOT NULL,
		width INTEGER NOT NULL,
		height INTEGER NOT NULL,
		duration_sec REAL NOT NULL,
		size INTEGER NOT NULL,
		created_at TEXT NOT NULL
	);
	CREATE INDEX broll_org ON broll(org_id, created_at);`, postgres: `CREATE TABLE broll (
		id TEXT COLLATE "C" PRIMARY KEY,
		org_id TEXT COLLATE "C" NOT NULL,
		name TEXT COLLATE "C" NOT NULL,
		media_key TEXT COLLATE "C" NOT NULL,
		keywords TEXT COLLATE "C" NOT NULL,
		still BIGINT NOT NULL,
		width BIGINT NOT NULL,
		height BIGINT NOT NULL,
		duration_sec DOUBLE PRECISION NOT NULL,
		size BIGINT NOT NULL,
		created_at TEXT COLLATE "C" NOT NULL
	);
	CREATE INDEX broll_org ON broll(org_id, created_at);`},
	// 21: failed attempts (gallery logins, API keys) per client address,
	// shared by the processes of one PostgreSQL database (failedattempts.go;
	// a single box counts them in memory).
	{sql: `CREATE TABLE failed_attempts (
		client TEXT PRIMARY KEY,
		until_ns INTEGER NOT NULL
	);`, postgres: `CREATE TABLE failed_attempts (
		client TEXT COLLATE "C" PRIMARY KEY,
		until_ns BIGINT NOT NULL
	);`},
	// 22: the runs of a project in a row whose lease ended without an
	// outcome, which the pipeline's watchdog backs off on (runs.go).
	{sql: `ALTER TABLE projects ADD COLUMN interruptions INTEGER NOT NULL DEFAULT 0;`,
		postgres: `ALTER TABLE projects ADD COLUMN interruptions BIGINT NOT NULL DEFAULT 0;`},
	// 23: the installation's identity, one row: its id, which the marker
	// object beside the media repeats, and where its media were last seen
	// (installation.go). An older database has none until its next start
	// adopts the media it starts with.
	{sql: `CREATE TABLE installation (
		one INTEGER PRIMARY KEY CHECK (one = 1),
		id TEXT NOT NULL,
		media TEXT NOT NULL,
		marked INTEGER NOT NULL,
		created_at TEXT NOT NULL
	);`, postgres: `CREATE TABLE installation (
		one BIGINT PRIMARY KEY CHECK (one = 1),
		id TEXT COLLATE "C" NOT NULL,
		media TEXT COLLATE "C" NOT NULL,
		marked BIGINT NOT NULL,
		created_at TEXT COLLATE "C" NOT NULL
	);`},
	// 24: the pieces of a project's run (transcription chunks, one render
	// per clip), each claimed by any worker under a lease and fenced by
	// its attempt (pieces.go). Specs and results are the pipeline's JSON,
	// kept as bytes the store does not read.
	{sql: `CREATE TABLE pieces (
		project_id TEXT NOT NULL,
		kind TEXT NOT NULL,
		idx INTEGER NOT NULL,
		run_token INTEGER NOT NULL,
		spec BLOB NOT NULL,
		spec_hash TEXT NOT NULL,
		state TEXT NOT NULL,
		attempt INTEGER NOT NULL,
		lease_until TEXT,
		result BLOB,
		error TEXT NOT NULL,
		failures INTEGER NOT NULL,
		updated_at TEXT NOT NULL,
		PRIMARY KEY (project_id, kind, idx)
	);`, postgres: `CREATE TABLE pieces (
		project_id TEXT COLLATE "C" NOT NULL,
		kind TEXT COLLATE "C" NOT NULL,
		idx BIGINT NOT NULL,
		run_token BIGINT NOT NULL,
		spec BYTEA NOT NULL,
		spec_hash TEXT COLLATE "C" NOT NULL,
		state TEXT COLLATE "C" NOT NULL,
		attempt BIGINT NOT NULL,
		lease_until TEXT COLLATE "C",
		result BYTEA,
		error TEXT COLLATE "C" NOT NULL,
		failures BIGINT NOT NULL,
		updated_at TEXT COLLATE "C" NOT NULL,
		PRIMARY KEY (project_id, kind, idx)
	);`},
}

func (s *Store) migrate(ctx context.Context) error { return s.migrateTo(ctx, len(migrations)) }

// migrateTo applies the migrations up to version upTo (tests stop early to
// write what an older clipperd wrote).
func (s *Store) migrateTo(ctx context.Context, upTo int) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("migrations table: %w", err)
	}
	have, err := schemaVersion(ctx, s.db)
	if err != nil {
		return err
	}
	if d := s.dialect; d.base != "" && have < d.baseVersion {
		if err := s.migrateStep(ctx, d.baseVersion, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, d.base)
			return err
		}); err != nil {
			return err
		}
		have = d.baseVersion
	}
	var vacuum []string
	for i := have; i < upTo; i++ {
		m := migrations[i]
		vacuum = append(vacuum, m.vacuum...)
		stmt := s.dialect.migration(m)
		err := s.migrateStep(ctx, i+1, func(tx *sql.Tx) error {
			if stmt != "" {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return err
				}
			}
			if m.apply != nil {
				if err := m.apply(ctx, tx); err != nil {
					return err
				}
			}
			if m.applySealed != nil {
				return m.applySealed(ctx, tx, s.master)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return s.vacuum(ctx, vacuum)
}

// vacuum rewrites what a migration removed secrets from, so their bytes
// are not left in free space: on SQLite the whole file (old rows of dropped
// and updated tables stay in freed pages), on PostgreSQL the updated tables
// (dropped ones lose their files; updated rows leave dead tuples). Another
// process may hold PostgreSQL's tables, and waits on the lock briefly.
func (s *Store) vacuum(ctx context.Context, tables []string) error {
	if len(tables) == 0 {
		return nil
	}
	for _, q := range s.dialect.vacuum(tables) {
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("after migration: %s: %w", q, err)
		}
	}
	return nil
}

// migrateStep brings the schema to version by fn in one transaction,
// unless another process got there first: on PostgreSQL several clipperd
// processes may start at once, and a lock makes them take turns.
func (s *Store) migrateStep(ctx context.Context, version int, fn func(*sql.Tx) error) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		// The lock's name is the one older releases took, so
		// processes of two releases still take turns.
		if err := s.dialect.lock(ctx, tx, "clipperd schema_migrations"); err != nil {
			return err
		}
		have, err := schemaVersion(ctx, tx)
		if err != nil || have >= version {
			return err
		}
		if err := fn(tx); err != nil {
			return err
		}
		// A PostgreSQL start records each version its base schema holds,
		// so the table reads the same on both engines.
		for v := have + 1; v <= version; v++ {
			if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, applied_at) VALUES (?, ?)`, v, Timestamp(s.Now())); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("migration %d: %w", version, err)
	}
	return nil
}

func schemaVersion(ctx context.Context, q querier) (int, error) {
	var have int
	if err := q.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return have, nil
}

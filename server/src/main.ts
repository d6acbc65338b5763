// Starts Tollbooth: read config, open and migrate the database, build the app, listen, and shut
// down gracefully on SIGINT/SIGTERM (stop accepting, finish in-flight requests, close the database).
import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { openDatabase } from './db/client.ts';
import { migrate } from './db/migrate.ts';

async function main() {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(1);
    }
    throw error;
  }
  const db = await openDatabase(config);
  await migrate(db);
  const app = await buildApp({ config, db });
  if (!config.webDistDir) app.log.warn('web/dist is not built: run `npm run build` to serve the web app');

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    try {
      await app.close();
      await db.close();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ port: config.port, host: config.host });
  app.log.info({ url: config.publicUrl, database: db.kind, oidcIssuer: config.oidc.issuer }, 'Tollbooth is ready');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

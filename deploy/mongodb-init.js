// One-shot initialisation of the compose replica set (docker-compose.yml, service mongodb-init):
// authenticates as the root user the image created, initiates rs0 if it is not yet, waits until this
// node is the writable primary (so that the services started after it never see a replica set still
// electing its primary), then creates or updates the service's own user, which may read and write
// its database only. Credentials come from the environment, never from the command line.
const env = process.env;
for (const name of ['MONGODB_ROOT_USERNAME', 'MONGODB_ROOT_PASSWORD', 'MONGODB_APP_PASSWORD']) {
  if (!env[name]) {
    print(`mongodb-init: ${name} is not set (run deploy/init-env.sh, then docker compose up)`);
    quit(2);
  }
}
db.getSiblingDB('admin').auth(env.MONGODB_ROOT_USERNAME, env.MONGODB_ROOT_PASSWORD);

const config = { _id: 'rs0', members: [{ _id: 0, host: 'mongodb:27017' }] };
try {
  rs.status();
} catch (error) {
  if (error.codeName !== 'NotYetInitialized') throw error;
  try {
    rs.initiate(config);
    print('mongodb-init: replica set rs0 initiated');
  } catch (initError) {
    // Another run initiated it in the meantime.
    if (initError.codeName !== 'AlreadyInitialized') throw initError;
  }
}
const deadline = Date.now() + 120 * 1000;
while (!db.hello().isWritablePrimary) {
  if (Date.now() > deadline) {
    print('mongodb-init: no writable primary after 120 s');
    quit(1);
  }
  sleep(500);
}
print('mongodb-init: rs0 has a writable primary');

// The service's user: its database only (read models, checkpoints, GridFS blobs).
const service = db.getSiblingDB('docs_platform');
const roles = [{ role: 'readWrite', db: 'docs_platform' }];
if (service.getUser('docs_platform')) {
  service.updateUser('docs_platform', { pwd: env.MONGODB_APP_PASSWORD, roles });
  print('mongodb-init: user docs_platform updated');
} else {
  service.createUser({ user: 'docs_platform', pwd: env.MONGODB_APP_PASSWORD, roles });
  print('mongodb-init: user docs_platform created');
}

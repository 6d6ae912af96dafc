// One-shot initialisation of the compose replica set (docker-compose.yml, service mongodb-init):
// initiates rs0 if it is not yet, then waits until this node is the writable primary, so that the
// services started after it never see a replica set still electing its primary.
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

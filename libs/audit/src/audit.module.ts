import { Module } from '@nestjs/common';
import { AuditEventsController } from './audit.controller';
import { AuditAccessPolicy, AuditLog, AuditQueries } from './audit.queries';
import { StreamHistoryController } from './stream-history.controller';

/**
 * The audit context over HTTP: the organization audit log and the admin stream history.
 * Its port `ORGANIZATION_ACCESS` comes bound from the composition root.
 */
@Module({
  controllers: [AuditEventsController, StreamHistoryController],
  providers: [AuditLog, AuditAccessPolicy, AuditQueries],
  exports: [AuditLog],
})
export class AuditModule {}

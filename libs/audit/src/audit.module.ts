import { Module } from '@nestjs/common';
import { AuditEventsController } from './audit.controller';
import { AuditAccessPolicy, auditQueryHandlers } from './audit.queries';
import { StreamHistoryController } from './stream-history.controller';
import { streamHistoryQueryHandlers } from './stream-history.queries';

/**
 * The audit context over HTTP: the organization audit log and the admin stream history.
 * Its port `ORGANIZATION_ACCESS` comes bound from the composition root.
 */
@Module({
  controllers: [AuditEventsController, StreamHistoryController],
  providers: [AuditAccessPolicy, ...auditQueryHandlers, ...streamHistoryQueryHandlers],
})
export class AuditModule {}

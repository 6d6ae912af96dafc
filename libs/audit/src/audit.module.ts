import { Module, type ClassProvider, type DynamicModule, type ExistingProvider, type FactoryProvider, type ModuleMetadata, type Provider, type ValueProvider } from '@nestjs/common';
import { AuditEventsController } from './audit.controller';
import { AuditAccessPolicy, AuditLog, AuditQueries } from './audit.queries';
import { ORGANIZATION_ACCESS } from './organization-access';
import { StreamHistoryController } from './stream-history.controller';

/** How `ORGANIZATION_ACCESS` is provided: any provider form but the token itself. */
export type OrganizationAccessProvider =
  | Omit<ClassProvider, 'provide'>
  | Omit<ValueProvider, 'provide'>
  | Omit<FactoryProvider, 'provide'>
  | Omit<ExistingProvider, 'provide'>;

/**
 * The audit context over HTTP: the organization audit log and the admin stream history.
 * Used as is, it needs `ORGANIZATION_ACCESS` from a global module; `register` supplies it instead,
 * typically `AuditModule.register({ imports: [OrganizationsModule], access: { useExisting: OrganizationMembership } })`.
 */
@Module({
  controllers: [AuditEventsController, StreamHistoryController],
  providers: [AuditLog, AuditAccessPolicy, AuditQueries],
  exports: [AuditLog],
})
export class AuditModule {
  static register(options: { imports?: ModuleMetadata['imports']; access?: OrganizationAccessProvider }): DynamicModule {
    return {
      module: AuditModule,
      imports: options.imports ?? [],
      providers: options.access ? [{ provide: ORGANIZATION_ACCESS, ...options.access } as Provider] : [],
    };
  }
}

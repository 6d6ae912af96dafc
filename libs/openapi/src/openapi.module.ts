import { Module } from '@nestjs/common';
import { OpenapiAccess } from './openapi.access';
import { openapiCommandHandlers } from './openapi.commands';
import { OpenapiController } from './openapi.controller';
import { OpenapiForContent } from './openapi.provides';
import { ProcessOpenapiSourceHandler } from './openapi.processing';
import { openapiQueryHandlers, ParsedDocuments } from './openapi.queries';

/** The OpenAPI context: specs, their processing and versions. What it needs of organizations comes through its port. */
@Module({
  controllers: [OpenapiController],
  providers: [
    OpenapiAccess,
    ParsedDocuments,
    ...openapiCommandHandlers,
    ProcessOpenapiSourceHandler,
    ...openapiQueryHandlers,
    OpenapiForContent,
  ],
  exports: [OpenapiForContent],
})
export class OpenapiModule {}

import { Module } from '@nestjs/common';
import { OpenapiCommands } from './openapi.commands';
import { OpenapiController } from './openapi.controller';
import { OpenapiForContent } from './openapi.ports';
import { OpenapiProcessing } from './openapi.processing';
import { OpenapiQueries } from './openapi.queries';

/** The OpenAPI context: specs, their processing and versions. What it needs of organizations comes through its port. */
@Module({
  controllers: [OpenapiController],
  providers: [OpenapiQueries, OpenapiCommands, OpenapiProcessing, OpenapiForContent],
  exports: [OpenapiForContent],
})
export class OpenapiModule {}

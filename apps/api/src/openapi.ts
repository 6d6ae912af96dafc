import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';

/** The service's own OpenAPI document at `/v1/openapi.json`, with an interactive page at `/docs`. */
export function setUpOpenApi(app: NestFastifyApplication): void {
  const config = new DocumentBuilder()
    .setTitle('Docs platform management API')
    .setDescription('Organizations, members, teams, SSO, spaces, content, change requests, comments, sites, integrations, OpenAPI specs and translations.')
    .setVersion('1')
    .addBearerAuth()
    .build();
  const document = SwaggerModule.createDocument(app, config);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'v1/openapi.json', yamlDocumentUrl: 'v1/openapi.yaml' });
}

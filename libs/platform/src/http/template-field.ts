import { applyDecorators } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsObject, ValidateBy, ValidateIf } from 'class-validator';

const MAX_TEMPLATE_ID = 128;

/** A template as the platform's requests carry it: `{ id, params? }`. */
export interface TemplateRequest {
  id: string;
  params?: object;
}

function isTemplate(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const template = value as Record<string, unknown>;
  const params = template.params;
  return (
    Object.keys(template).every((key) => key === 'id' || key === 'params') &&
    typeof template.id === 'string' &&
    template.id.length <= MAX_TEMPLATE_ID &&
    (params === undefined || (typeof params === 'object' && params !== null && !Array.isArray(params)))
  );
}

/**
 * `template` of the platform's creation requests (spaces, sections, site spaces, change requests):
 * checked for its shape, accepted and not applied, since this service has no templates; what is
 * created starts empty. The service's OpenAPI document describes it through the `isTemplate` converter.
 */
export function TemplateField(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      description: 'a template (accepted and not applied: this service has no templates; what is created starts empty)',
    }),
    ValidateIf((_: object, value: unknown) => value !== undefined),
    IsObject({ message: 'template must be an object { id, params? }' }),
    ValidateBy({
      name: 'isTemplate',
      validator: {
        validate: isTemplate,
        defaultMessage: () => `template must be { id: string of at most ${MAX_TEMPLATE_ID} characters, params?: object }`,
      },
    }),
  );
}

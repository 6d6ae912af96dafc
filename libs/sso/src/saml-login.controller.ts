import { Body, Controller, Get, Header, HttpCode, Post, Query, Redirect, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiFoundResponse, ApiOkResponse } from '@nestjs/swagger';
import { ref } from '#platform/platform.schemas';
import type { FastifyRequest } from 'fastify';
import { Public } from '#platform/http/auth';
import { PathId } from '#platform/http/id-param';
import { SamlResponseBody, StartSamlLoginQuery } from './saml-provider.dto';
import { CompleteSamlLogin, StartSamlLogin } from './saml-login';
import { samlLoginCaller } from './sso.caller';
import { Valid } from '#platform/http/validation';

/**
 * The SAML login, for browsers on their way to and back from the identity provider, so no token:
 * `start` redirects to the provider with an AuthnRequest; the provider posts its response to `acs`,
 * which answers `{ user, token }` (plus `relayState` when the login carried one). Failed ACS
 * attempts are counted per client address (SamlFailureLimiter, in CompleteSamlLogin): past the limit, 429.
 */
@Controller('v1/sso/saml/:providerId')
@Public()
export class SamlLoginController {
  constructor(private readonly commandBus: CommandBus) {}

  @Get('start')
  @ApiFoundResponse({
    description: 'to the identity provider, with a SAML AuthnRequest',
    headers: { Location: { description: 'the identity provider’s SSO URL', schema: { type: 'string', format: 'uri' } } },
  })
  @Redirect()
  @Header('Cache-Control', 'no-store')
  async start(
    @PathId('providerId', 'SAML provider') providerId: string,
    @Query(Valid) query: StartSamlLoginQuery,
    @Req() request: FastifyRequest,
  ) {
    const { url } = await this.commandBus.execute(new StartSamlLogin(providerId, query.RelayState, samlLoginCaller(request.id)));
    return { url, statusCode: 302 };
  }

  /** Form-encoded (SAML HTTP-POST binding) or JSON: `SAMLResponse`, optional `RelayState`. */
  @Post('acs')
  @ApiOkResponse({ description: 'signed in: the user and a new token', schema: ref('SamlLogin') })
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  async acs(
    @PathId('providerId', 'SAML provider') providerId: string,
    @Body(Valid) body: SamlResponseBody,
    @Req() request: FastifyRequest,
  ) {
    const login = await this.commandBus.execute(
      new CompleteSamlLogin(providerId, body.SAMLResponse, request.ip, samlLoginCaller(request.id)),
    );
    return body.RelayState === undefined ? login : { ...login, relayState: body.RelayState };
  }
}

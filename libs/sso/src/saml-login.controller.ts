import { Body, Controller, Get, Header, HttpCode, Post, Query, Redirect, Req } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import type { FastifyRequest } from 'fastify';
import { Public } from '../../platform/src/http/auth';
import { PathId } from '../../platform/src/http/id-param';
import { SamlResponseBody, StartSamlLoginQuery } from './saml-provider.dto';
import { ConsumeSamlResponse, StartSamlLogin } from './saml-login';
import { samlLoginCaller } from './sso.caller';
import { Valid } from '../../platform/src/http/validation';

/**
 * The SAML login, for browsers on their way to and back from the identity provider, so no token:
 * `start` redirects to the provider with an AuthnRequest; the provider posts its response to `acs`,
 * which answers `{ user, token }` (plus `relayState` when the login carried one).
 */
@Controller('v1/sso/saml/:providerId')
@Public()
export class SamlLoginController {
  constructor(private readonly commandBus: CommandBus) {}

  @Get('start')
  @Redirect()
  @Header('Cache-Control', 'no-store')
  async start(@PathId('providerId', 'SAML provider') providerId: string, @Query(Valid) query: StartSamlLoginQuery, @Req() request: FastifyRequest) {
    const { url } = await this.commandBus.execute(new StartSamlLogin(providerId, query.RelayState, samlLoginCaller(request.id)));
    return { url, statusCode: 302 };
  }

  /** Form-encoded (SAML HTTP-POST binding) or JSON: `SAMLResponse`, optional `RelayState`. */
  @Post('acs')
  @HttpCode(200)
  @Header('Cache-Control', 'no-store')
  async acs(@PathId('providerId', 'SAML provider') providerId: string, @Body(Valid) body: SamlResponseBody, @Req() request: FastifyRequest) {
    const login = await this.commandBus.execute(new ConsumeSamlResponse(providerId, body.SAMLResponse, samlLoginCaller(request.id)));
    return body.RelayState === undefined ? login : { ...login, relayState: body.RelayState };
  }
}

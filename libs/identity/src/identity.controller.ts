import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { Body, Controller, Delete, Get, Headers, HttpCode, Patch, Post, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { etagHeader, ref } from '#platform/platform.schemas';
import { parseIfMatch, tagged } from '#platform/http/etag';
import { IsEmail, IsOptional, IsString, IsUrl, Length, MaxLength, ValidateIf } from 'class-validator';
import { NotBlank } from '#platform/http/validation';
import { AdminOnly, CurrentCaller, userOf, type Caller } from '#platform/http/auth';
import { PathId } from '#platform/http/id-param';
import { CreateUser, IssueToken, RevokeToken, UpdateUserProfile } from './identity.commands';
import { GetUser } from './identity.queries';
import { Valid } from '#platform/http/validation';
import { CachedRead } from '#platform/http/response-cache';

export class CreateUserBody {
  @IsEmail({}, { message: 'email must be an e-mail address' })
  @MaxLength(254)
  email!: string;

  @IsString()
  @Length(1, 100)
  @NotBlank()
  displayName!: string;

  @IsOptional()
  @IsUrl({ require_protocol: true, protocols: ['http', 'https'] }, { message: 'photoURL must be an http(s) URL' })
  @MaxLength(2048)
  photoURL?: string;
}

/** `PATCH /v1/user` (extension): the caller's own profile; members left out stay as they are, `photoURL: null` removes the photo. */
export class UpdateUserBody {
  @IsOptional()
  @IsString()
  @Length(1, 100)
  @NotBlank()
  displayName?: string;

  @ValidateIf((_, value) => value !== undefined && value !== null)
  @IsUrl({ require_protocol: true, protocols: ['http', 'https'] }, { message: 'photoURL must be an http(s) URL or null' })
  @MaxLength(2048)
  photoURL?: string | null;
}

@Controller('v1/admin')
@AdminOnly()
export class AdminIdentityController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  /** `POST /v1/admin/users` → 201 `{ user, token }`: the token is shown this once. */
  @Post('users')
  @ApiCreatedResponse({ description: 'created', schema: ref('CreatedUser') })
  @HttpCode(201)
  async createUser(@Body(Valid) body: CreateUserBody, @CurrentCaller() caller: Caller) {
    const userId = await this.commandBus.execute(new CreateUser(body.email, body.displayName, body.photoURL ?? null, caller));
    const { tokenId, token } = await this.commandBus.execute(new IssueToken(userId, caller));
    return { user: (await this.queryBus.execute(new GetUser(userId))).object, token, tokenId };
  }

  /** `POST /v1/admin/users/{userId}/tokens` → 201 `{ id, token }`. */
  @Post('users/:userId/tokens')
  @ApiCreatedResponse({ description: 'created', schema: ref('IssuedToken') })
  @HttpCode(201)
  async issueToken(@PathId('userId', 'user') userId: string, @CurrentCaller() caller: Caller) {
    const { tokenId, token } = await this.commandBus.execute(new IssueToken(userId, caller));
    return { id: tokenId, token };
  }

  /** `DELETE /v1/admin/tokens/{tokenId}` → 204; the token stops working at once. */
  @Delete('tokens/:tokenId')
  @ApiNoContentResponse({ description: 'done' })
  @HttpCode(204)
  async revokeToken(@PathId('tokenId', 'token') tokenId: string, @CurrentCaller() caller: Caller): Promise<void> {
    await this.commandBus.execute(new RevokeToken(tokenId, caller));
  }
}

@Controller('v1/user')
export class CurrentUserController {
  constructor(
    private readonly commandBus: CommandBus,
    private readonly queryBus: QueryBus,
  ) {}

  /** `GET /v1/user` → the caller as an embedded user object, with the ETag of their profile. */
  @Get()
  @ApiOkResponse({ description: 'OK', schema: ref('User'), headers: etagHeader })
  @CachedRead()
  async me(@CurrentCaller() caller: Caller, @Res({ passthrough: true }) reply: FastifyReply) {
    return tagged(reply, await this.queryBus.execute(new GetUser(userOf(caller).userId)));
  }

  /** `PATCH /v1/user` (extension) → the caller, changed; `If-Match` with the ETag of `GET /v1/user` makes it conditional (412 when stale). */
  @Patch()
  @ApiOkResponse({ description: 'OK', schema: ref('User'), headers: etagHeader })
  async update(
    @Body(Valid) body: UpdateUserBody,
    @Headers('if-match') ifMatch: string | undefined,
    @CurrentCaller() caller: Caller,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const userId = userOf(caller).userId;
    await this.commandBus.execute(
      new UpdateUserProfile(userId, { displayName: body.displayName, photoURL: body.photoURL }, caller, parseIfMatch(ifMatch)),
    );
    return tagged(reply, await this.queryBus.execute(new GetUser(userId)));
  }
}

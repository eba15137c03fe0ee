import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ForbiddenError } from '../errors';
import type { ApiContext } from '../api-context';

/**
 * Query bodies name their pixel; it must be the pixel the key was checked against (spec 5.4).
 * Runs before validation, as the architecture orders it: a request aimed at someone else's
 * pixel is refused as such, whatever else is wrong with it.
 */
export const bodyPixelIdMatchesHeader = (): MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, ApiContext> => ({
  name: 'bodyPixelIdMatchesHeader',
  before: ({ context }) => {
    const claimed = context.api.rawBody?.pixelId;
    if (claimed !== undefined && claimed !== context.api.principal?.pixelId) {
      throw new ForbiddenError('Body pixelId does not match the x-pixel-id header');
    }
  },
});

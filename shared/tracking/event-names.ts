/**
 * Standard event names: the snake_case vocabulary of the pixel's taxonomy plus the e-commerce and
 * lifecycle names analytics tools share (GA4, Meta), so a server-side event and a pixel event of
 * the same kind carry the same name. Anything else is a custom event. Names are case-sensitive:
 * `Purchase` is a custom name, not `purchase`, and only `purchase` feeds the order store.
 */
export const STANDARD_EVENT_NAMES = [
  'page_view',
  'view_content',
  'view_category',
  'view_item',
  'view_item_list',
  'view_cart',
  'search',
  'add_to_cart',
  'remove_from_cart',
  'product_removed_from_cart',
  'add_to_wishlist',
  'begin_checkout',
  'initiate_checkout',
  'add_shipping_info',
  'add_payment_info',
  'purchase',
  'refund',
  'sign_up',
  'login',
  'lead',
  'subscribe',
  'start_trial',
  'contact',
] as const;

export type StandardEventName = (typeof STANDARD_EVENT_NAMES)[number];

const STANDARD = new Set<string>(STANDARD_EVENT_NAMES);

export function isStandardEventName(name: string): name is StandardEventName {
  return STANDARD.has(name);
}

/** Every name, standard or custom: a letter, then letters, digits and underscores. */
export const EVENT_NAME_PATTERN = /^[a-zA-Z][a-zA-Z0-9_]*$/;
export const EVENT_NAME_MAX_LENGTH = 100;

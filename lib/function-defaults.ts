/**
 * Settings every API function shares, deployed or local. The timeout stays well under API
 * Gateway's 30 s integration limit, so a slow call ends as our own 503, not a gateway 504.
 */
export const FUNCTION_DEFAULTS = {
  memoryMiB: 1024,
  timeoutSeconds: 10,
} as const;

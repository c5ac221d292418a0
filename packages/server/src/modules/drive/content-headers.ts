/** Sent with every file body the drive serves: an active document never runs from the API's origin, whatever it is. */
export const SANDBOX_HEADERS = {
  'content-security-policy': "sandbox; default-src 'none'",
  'x-content-type-options': 'nosniff',
} as const;

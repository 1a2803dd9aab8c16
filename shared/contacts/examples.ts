/** A contact as the API answers it, from the demo data: the OpenAPI document's examples. */
export const contactExample = {
  customer: 'demo',
  handle: 'demo-registrant',
  brand: 'default',
  name: 'Anna de Vries',
  organization: 'Demo Hosting B.V.',
  addressLine: ['Keizersgracht 100'],
  postalCode: '1015 AA',
  city: 'Amsterdam',
  country: 'NL',
  email: 'domains@demo-hosting.example',
  voice: '+31.201234567',
  properties: { sidn: { legalForm: 'BV' }, nominet: { ukContactType: 'FCORP' } },
  registries: ['nominet', 'sidn'],
  createdDate: '2024-03-01T09:05:00Z',
};

/** The body of a new contact, as the TypeScript SDK sends it. */
export const newContactBody = {
  handle: 'demo-webshop',
  name: 'Eva Smit',
  organization: 'Webshop Smit',
  addressLine: ['Prinsengracht 263'],
  postalCode: '1016 GV',
  city: 'Amsterdam',
  country: 'NL',
  email: 'eva@webshop-smit.example',
  voice: '+31.205556677',
};

export const idempotencyKeyHeader = {
  name: 'Idempotency-Key',
  description: 'Makes a retry safe: the same key within 24 hours replays the first answer (`Idempotent-Replayed: true`).',
  example: '0e5b7c1d-2f4a-4b8e-9c3d-6a1f2e3b4c5d',
};

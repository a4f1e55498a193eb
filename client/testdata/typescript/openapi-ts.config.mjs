// The generated client validates every request and every answer with zod
// schemas generated from the description.
export default {
  input: 'openapi.json',
  output: 'gen',
  plugins: ['@hey-api/client-fetch', 'zod', { name: '@hey-api/sdk', validator: true }],
};

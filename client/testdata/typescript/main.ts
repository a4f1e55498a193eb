// Reads one purchase order through the generated client and prints what it
// decoded, then tries to send an unknown status, which the client's request
// validation must refuse before sending anything.
//
// Usage: tsx main.ts BASE_URL PURCHASE_ORDER_ID STATUS
import { client } from './gen/client.gen';
import { changePurchaseOrderStatus, getPurchaseOrder } from './gen/sdk.gen';

const [base, id, unknown] = process.argv.slice(2);
client.setConfig({ baseUrl: base, auth: 'key_test_typescript' });

const read = await getPurchaseOrder({ path: { purchase_order_id: Number(id) }, throwOnError: true });

let send = 'sent';
try {
  await changePurchaseOrderStatus({
    path: { purchase_order_id: Number(id) },
    body: { status: unknown as never },
    throwOnError: true,
  });
} catch (err) {
  // zod's error lists what it refused.
  const issue = (err as { issues?: { code: string; path: (string | number)[] }[] }).issues?.[0];
  send = issue ? `refused: ${issue.code} at ${issue.path.join('.')}` : `failed: ${String(err)}`;
}
console.log(JSON.stringify({ status: read.data.data.status, lines: read.data.data.lines?.length ?? null, send }));

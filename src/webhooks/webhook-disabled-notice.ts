/** The `webhook.endpoint_disabled` e-mail: what stopped, why, and how to resume. */
export function endpointDisabledNotice({ endpointUuid, url, reason }: { endpointUuid: string; url: string; reason: string }): {
  subject: string;
  text: string;
} {
  return {
    subject: `Webhook endpoint disabled: ${url}`,
    text: [
      `Deliveries to your webhook endpoint ${url} (${endpointUuid}) have stopped.`,
      '',
      reason,
      '',
      'Events are no longer queued for it. Once the endpoint answers 2xx again, enable it with',
      `PATCH /api/v1/webhooks/${endpointUuid} {"enabled": true} (GraphQL: updateWebhook); deliveries still pending are then sent,`,
      `and failed ones can be sent again from GET /api/v1/webhooks/${endpointUuid}/deliveries?where[status]=failed (redeliver).`,
    ].join('\n'),
  };
}

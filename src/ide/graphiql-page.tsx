import { renderDocument } from '../pages/layout.js';

/** The /graphiql document: a form for the tenant and token, then GraphiQL below it. */
export function renderGraphiqlPage(): string {
  return renderDocument(
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>GraphiQL · Credential service</title>
        <link rel="stylesheet" href="/graphiql/assets/graphiql.css" />
        <link rel="stylesheet" href="/graphiql/page.css" />
      </head>
      <body>
        <form id="credentials" autocomplete="off">
          <label>
            X-Tenant <input name="tenant" placeholder="demo" required />
          </label>
          <label>
            Token <input name="token" placeholder="access_token from POST /api/v1/oauth/token" required />
          </label>
          <button type="submit">Use these headers</button>
          <small>They go into the Headers tab as Authorization: Bearer … and X-Tenant, and are not stored.</small>
        </form>
        <div id="graphiql" />
        <script src="/graphiql/assets/react.js" />
        <script src="/graphiql/assets/react-dom.js" />
        <script src="/graphiql/assets/graphiql.js" />
        <script src="/graphiql/app.js" />
      </body>
    </html>,
  );
}

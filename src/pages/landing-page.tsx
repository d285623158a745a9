import { Layout, renderDocument } from './layout.js';

export interface LandingFacts {
  version: string;
  /** Development only: the IDEs are not served in production. */
  ides: boolean;
}

const LINKS = [
  { href: '/graphql', label: 'GraphQL endpoint', note: 'POST with a bearer token and X-Tenant; in development a browser gets Apollo Sandbox here' },
  { href: '/graphiql', label: 'GraphiQL', note: 'a GraphQL IDE served from this service (works offline)', ide: true },
  { href: '/docs', label: 'REST API documentation', note: 'the /api/v1 paths' },
  { href: '/readyz', label: 'Readiness', note: 'database reachable and every migration applied' },
] as const;

/** `/`: what this service is and where to go next, for a person who opened its address. */
export function renderLandingPage({ version, ides }: LandingFacts): string {
  return renderDocument(
    <Layout locale="en" meta={{ title: 'Credential service', noindex: true }}>
      <header>
        <h1>Credential service</h1>
        <p>
          Academic certificates for many tenants: GraphQL and REST over one core. Version <code>{version}</code>.
        </p>
      </header>
      <section>
        <ul>
          {LINKS.filter((link) => ides || !('ide' in link)).map((link) => (
            <li key={link.href}>
              <a href={link.href}>{link.label}</a> — {link.note}
            </li>
          ))}
        </ul>
      </section>
    </Layout>,
  );
}

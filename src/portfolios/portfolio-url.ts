/** Where a portfolio page is public: `/p/{tenant}/{slug}` (both are URL-safe by construction). */
export const portfolioUrl = (publicBaseUrl: string, tenantIdentifier: string, slug: string): string =>
  `${publicBaseUrl}/p/${encodeURIComponent(tenantIdentifier)}/${encodeURIComponent(slug)}`;

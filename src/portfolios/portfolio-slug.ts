import { ValidateBy } from 'class-validator';

/** 3-64 lower-case letters, digits and hyphens, starting and ending with a letter or digit: safe in a URL path as is. */
const SLUG = /^[a-z0-9][a-z0-9-]{1,62}[a-z0-9]$/;

export const isPortfolioSlug = (value: unknown): boolean => typeof value === 'string' && SLUG.test(value);

/** Input rule for a page slug; absent and null are left to `Present`. */
export const PortfolioSlug = (): PropertyDecorator =>
  ValidateBy({
    name: 'portfolioSlug',
    validator: {
      validate: (value) => value == null || isPortfolioSlug(value),
      defaultMessage: () => 'The slug must be 3 to 64 lower-case letters, digits or hyphens, starting and ending with a letter or digit.',
    },
  });

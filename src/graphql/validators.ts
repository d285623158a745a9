import { IsOptional, isEmail, isURL, matches, max, maxLength, min, ValidateBy, ValidateIf, type ValidationArguments } from 'class-validator';
import { humanize } from '../errors/humanize.js';
import { formatDate } from '../timestamps.js';

/**
 * Input rules with the messages a Laravel API gives, so both styles read the same. Each rule judges
 * values only; absent and null are the business of `Present` / `Nullable`, so a field reports one
 * message for one mistake. Rules that compare two fields of one input run here too, so they are
 * reported together with every other field error (input-errors.ts runs them all in one pass).
 */
const label = (args: ValidationArguments) => humanize(args.property);

function rule(name: string, check: (value: unknown, object: object) => boolean, message: (field: string) => string): PropertyDecorator {
  return ValidateBy({
    name,
    validator: { validate: (value, args) => value == null || check(value, args!.object), defaultMessage: (args) => message(label(args!)) },
  });
}

export const MaxChars = (limit: number) =>
  rule(
    'maxChars',
    (v) => maxLength(v, limit),
    (f) => `The ${f} field must not be greater than ${limit} characters.`,
  );
export const AtLeast = (floor: number) =>
  rule(
    'atLeast',
    (v) => min(v, floor),
    (f) => `The ${f} field must be at least ${floor}.`,
  );
export const AtMost = (ceiling: number) =>
  rule(
    'atMost',
    (v) => max(v, ceiling),
    (f) => `The ${f} field must not be greater than ${ceiling}.`,
  );
export const Email = () =>
  rule(
    'email',
    (v) => isEmail(v),
    (f) => `The ${f} field must be a valid email address.`,
  );
export const Url = () =>
  rule(
    'url',
    (v) => isURL(v as string, { require_protocol: true }),
    (f) => `The ${f} field must be a valid URL.`,
  );
/** A field clients may not send (null is accepted as "not sent"); `why` completes the message. */
export const Prohibited = (why: string) =>
  rule(
    'prohibited',
    () => false,
    (f) => `The ${f} field is prohibited: ${why}`,
  );
export const NotBlank = () =>
  rule(
    'notBlank',
    (v) => matches(v as string, /\S/),
    (f) => `The ${f} field is required.`,
  );
export const Decimals = (places: number) =>
  rule(
    'decimals',
    (v) => Math.abs(Math.round((v as number) * 10 ** places) - (v as number) * 10 ** places) < 1e-9,
    (f) => `The ${f} field must have at most ${places} decimal places.`,
  );
/** Free JSON fields (a template's `design_config`) take at most this many bytes each, as compact UTF-8 JSON (CONTRACT: limits by bytes). */
export const FREE_JSON_MAX_BYTES = 64 * 1024;

export const MaxJsonBytes = (limit: number) =>
  rule(
    'maxJsonBytes',
    (v) => Buffer.byteLength(JSON.stringify(v) ?? '') <= limit,
    (f) => `The ${f} field must not be greater than ${limit / 1024} kilobytes.`,
  );
/** One of `values`, exactly (a language tag such as `pt-BR`). */
export const OneOf = (values: readonly string[]) =>
  rule(
    'oneOf',
    (v) => values.includes(v as string),
    (f) => `The selected ${f} is invalid; allowed: ${values.join(', ')}.`,
  );
/** A `YYYY-MM-DD` date strictly before today (UTC). */
export const BeforeToday = () =>
  rule(
    'beforeToday',
    (v) => String(v) < formatDate(new Date()),
    (f) => `The ${f} field must be a date before today.`,
  );

/** Whether `end` is on or after `start`: one rule for the input check below and the services' check of a merged row. */
export const isOnOrAfter = (end: Date, start: Date): boolean => end.getTime() >= start.getTime();
export const onOrAfterMessage = (field: string, other: string) => `The ${humanize(field)} field must be a date after or equal to the ${humanize(other)}.`;

/** A date not before the input's `other` date, when both are in the same input. */
export const OnOrAfter = (other: string): PropertyDecorator =>
  ValidateBy({
    name: 'onOrAfter',
    validator: {
      validate: (value, args) => {
        const start = (args!.object as Record<string, unknown>)[other];
        return !(value instanceof Date) || !(start instanceof Date) || isOnOrAfter(value, start);
      },
      defaultMessage: (args) => onOrAfterMessage(args!.property, other),
    },
  });

/**
 * For PATCH inputs: an absent field skips validation, an explicit null is refused (the column has
 * no empty value), anything else runs the field's other rules.
 */
export const Present = (): PropertyDecorator => (target, property) => {
  ValidateIf((_object, value) => value !== undefined)(target, property);
  ValidateBy({
    name: 'present',
    validator: { validate: (value) => value !== null, defaultMessage: (args) => `The ${label(args!)} field is required.` },
  })(target, property);
};

/** Refuses an explicit null (the column has no empty value); absent passes (a PATCH keeps the value). Unlike `Present`, it skips no other rule. */
export const NotNull = (): PropertyDecorator =>
  ValidateBy({ name: 'notNull', validator: { validate: (value) => value !== null, defaultMessage: (args) => `The ${label(args!)} field is required.` } });

/** Laravel's `required_without` / `required_without_all`: the field, unless one of `others` names the same thing another way. */
export const RequiredWithoutAll = (others: string[]): PropertyDecorator =>
  ValidateBy({
    name: 'requiredWithoutAll',
    validator: {
      validate: (value, args) => value != null || others.some((other) => (args!.object as Record<string, unknown>)[other] != null),
      defaultMessage: (args) =>
        others.length === 1
          ? `The ${label(args!)} field is required when ${humanize(others[0]!)} is not present.`
          : `The ${label(args!)} field is required when none of ${others.map(humanize).join(' / ')} are present.`,
    },
  });

/** For fields that may be cleared: null or absent skips the other rules. */
export const Nullable = () => IsOptional();

/** How every input class is validated, by the operation guard's pass and by type-graphql alike. */
export const VALIDATION_SETTINGS = {
  forbidUnknownValues: false,
  skipMissingProperties: false,
  validationError: { target: false, value: false },
} as const;

import { IsOptional, isEmail, isURL, matches, max, maxLength, min, ValidateBy, ValidateIf, type ValidationArguments } from 'class-validator';
import { humanize } from '../errors/humanize.js';

/**
 * Input rules with the messages a Laravel API gives, so both styles read the same. Each rule judges
 * values only; absent and null are the business of `Present` / `Nullable`, so a field reports one
 * message for one mistake.
 */
const label = (args: ValidationArguments) => humanize(args.property);

function rule(name: string, check: (value: unknown) => boolean, message: (field: string) => string): PropertyDecorator {
  return ValidateBy({ name, validator: { validate: (value) => value == null || check(value), defaultMessage: (args) => message(label(args!)) } });
}

export const MaxChars = (limit: number) =>
  rule(
    'maxChars',
    (v) => maxLength(v, limit),
    (f) => `The ${f} may not be greater than ${limit} characters.`,
  );
export const AtLeast = (floor: number) =>
  rule(
    'atLeast',
    (v) => min(v, floor),
    (f) => `The ${f} must be at least ${floor}.`,
  );
export const AtMost = (ceiling: number) =>
  rule(
    'atMost',
    (v) => max(v, ceiling),
    (f) => `The ${f} may not be greater than ${ceiling}.`,
  );
export const Email = () =>
  rule(
    'email',
    (v) => isEmail(v),
    (f) => `The ${f} must be a valid email address.`,
  );
export const Url = () =>
  rule(
    'url',
    (v) => isURL(v as string, { require_protocol: true }),
    (f) => `The ${f} must be a valid URL.`,
  );
export const NotBlank = () =>
  rule(
    'notBlank',
    (v) => matches(v as string, /\S/),
    (f) => `The ${f} field is required.`,
  );

/**
 * For PATCH inputs: an absent field skips validation, an explicit null is refused (the column has
 * no empty value), anything else runs the field's other rules.
 */
export const Present = (): PropertyDecorator => (target, property) => {
  ValidateIf((_object, value) => value !== undefined)(target, property);
  ValidateBy({
    name: 'present',
    validator: { validate: (value) => value !== null, defaultMessage: (args) => `The ${label(args!)} field may not be null.` },
  })(target, property);
};

/** For fields that may be cleared: null or absent skips the other rules. */
export const Nullable = () => IsOptional();

/** class-validator's options for every input; also used where a resolver validates list items itself (certificate batches). */
export const INPUT_VALIDATION = { forbidUnknownValues: false, skipMissingProperties: false, validationError: { target: false, value: false } };

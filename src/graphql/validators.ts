import { IsEmail, IsOptional, IsUrl, Matches, Max, MaxLength, Min, ValidateBy, ValidateIf, type ValidationArguments } from 'class-validator';
import { humanize } from '../errors/classify.js';

/** class-validator rules with the messages a Laravel API gives, so both styles read the same. */
const label = (args: ValidationArguments) => humanize(args.property);

export const MaxChars = (max: number) => MaxLength(max, { message: (args) => `The ${label(args)} may not be greater than ${max} characters.` });
export const AtLeast = (min: number) => Min(min, { message: (args) => `The ${label(args)} must be at least ${min}.` });
export const AtMost = (max: number) => Max(max, { message: (args) => `The ${label(args)} may not be greater than ${max}.` });
export const Email = () => IsEmail({}, { message: (args) => `The ${label(args)} must be a valid email address.` });
export const Url = () => IsUrl({ require_protocol: true }, { message: (args) => `The ${label(args)} must be a valid URL.` });
export const NotBlank = () => Matches(/\S/, { message: (args) => `The ${label(args)} field is required.` });
export const Slug = () => Matches(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, { message: (args) => `The ${label(args)} may only contain lowercase letters, numbers and single hyphens.` });

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

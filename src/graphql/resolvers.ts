import { InstitutionResolver } from '../institutions/institution.resolver.js';
import { ViewerResolver } from '../viewer/viewer.resolver.js';

/** Every resolver of the schema; a domain adds its resolver here. */
export const resolvers = [ViewerResolver, InstitutionResolver] as const;

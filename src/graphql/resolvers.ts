import { ViewerResolver } from '../viewer/viewer.resolver.js';

/** Every resolver of the schema; a domain adds its resolver here. */
export const resolvers = [ViewerResolver] as const;

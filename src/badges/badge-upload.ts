/** The media types a baked badge may be sent as, raw in the body. */
export const BAKED_IMAGE_TYPES = ['image/png', 'image/svg+xml', 'application/octet-stream'];

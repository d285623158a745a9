/** Where a template's preview is served (template-preview.route.ts): what `preview_image_path` of a template with a layout says. */
export const previewPath = (templateUuid: string): string => `/api/v1/certificate-templates/${templateUuid}/preview`;

import type { Locale } from '../pages/locale.js';

/** Every sentence of the issued-certificate e-mail, in English; each language the service speaks says the same things. */
const en = {
  subject: (course: string, institution: string) => `Your certificate for ${course} from ${institution}`,
  greeting: (name: string) => `Dear ${name},`,
  /** Around the course's name, which the HTML part shows in bold. */
  issued: { before: (institution: string) => `${institution} has issued your certificate for `, after: '.' },
  verifyText: 'View and verify it, and download the signed PDF and your transcript, at:',
  verifyLink: 'View and verify your certificate',
  verifyLinkAfter: ' — the page also has the signed PDF and your transcript.',
  badgeText: 'Download your Open Badge (an image with the credential baked in, for badge backpacks and profiles):',
  badgeLink: 'Download your Open Badge',
  badgeLinkAfter: ' — an image with the credential baked in, for badge backpacks and profiles.',
  certificateId: 'Certificate ID',
};

export type IssuedEmailMessages = typeof en;

const ptBR: IssuedEmailMessages = {
  subject: (course, institution) => `Seu certificado de ${course} emitido por ${institution}`,
  greeting: (name) => `Olá, ${name},`,
  issued: { before: (institution) => `${institution} emitiu o seu certificado de `, after: '.' },
  verifyText: 'Veja e verifique o certificado, e baixe o PDF assinado e o seu histórico, em:',
  verifyLink: 'Ver e verificar o seu certificado',
  verifyLinkAfter: ' — a página também tem o PDF assinado e o seu histórico.',
  badgeText: 'Baixe o seu Open Badge (uma imagem com a credencial embutida, para mochilas de selos e perfis):',
  badgeLink: 'Baixar o seu Open Badge',
  badgeLinkAfter: ' — uma imagem com a credencial embutida, para mochilas de selos e perfis.',
  certificateId: 'ID do certificado',
};

const CATALOGUES: Record<Locale, IssuedEmailMessages> = { en, 'pt-BR': ptBR };

/** The e-mail's sentences in a certificate's `locale` (validated against LOCALES on input); English when it has none. */
export const issuedEmailMessages = (locale: string | null | undefined): IssuedEmailMessages => CATALOGUES[locale as Locale] ?? en;

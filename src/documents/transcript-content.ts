import { compareGroups, comparePositions } from '../courses/module-order.js';
import { DocumentError } from './document-error.js';
import type { DocumentDesign } from './document-design.js';
import type { Locale } from '../i18n/locales.js';
import { messagesFor, type Messages } from '../i18n/messages.js';

/** Everything a transcript shows, gathered by the caller at issuance (the student snapshot included). */
export interface TranscriptData {
  institutionName: string;
  student: {
    /** The name to print: the snapshot's social_name when set, else its name. */
    name: string;
    /** YYYY-MM-DD, or a Date read as UTC. */
    dateOfBirth: string | Date;
  };
  course: { name: string; code?: string | null };
  moduleGroups: TranscriptModuleGroup[];
  modules: TranscriptModule[];
  enrollment?: {
    /** 0 to 10; decimals arrive as strings from the database. */
    grade?: number | string | null;
    completedAt?: string | Date | null;
  } | null;
  certificate: { uuid: string; verificationUrl: string; issuedAt: Date };
  /** The language of the labels (the certificate's locale); English when absent. */
  locale?: Locale;
  /** Colours and logo from the certificate's template and institution; defaults when absent. */
  design?: DocumentDesign;
}

export interface TranscriptModuleGroup {
  uuid: string;
  name: string;
  order?: number | null;
}

export interface TranscriptModule {
  code?: string | null;
  name: string;
  /** Hours. */
  workload?: number | null;
  credits?: number | null;
  order?: number | null;
  /** The module's group in this course; null, or a group not listed, files it under "Other modules". */
  groupUuid?: string | null;
}

export interface TranscriptSection {
  title: string;
  modules: TranscriptModule[];
  workload: number;
  credits: number;
}

/** The transcript's labels in its language. */
export const transcriptLabels = (data: Pick<TranscriptData, 'locale'>): Messages['transcript'] => messagesFor(data.locale ?? 'en').transcript;

/** Sections and modules in the course's display order (module-order.ts); input order breaks ties. */
export function transcriptSections(data: Pick<TranscriptData, 'moduleGroups' | 'modules' | 'locale'>): TranscriptSection[] {
  const groups = [...data.moduleGroups].sort(compareGroups);
  const known = new Set(groups.map((group) => group.uuid));
  const modules = [...data.modules].sort((a, b) => comparePositions(a.order, b.order));
  const sections = groups.map((group) =>
    section(
      group.name,
      modules.filter((m) => m.groupUuid === group.uuid),
    ),
  );
  sections.push(
    section(
      transcriptLabels(data).otherModules,
      modules.filter((m) => !m.groupUuid || !known.has(m.groupUuid)),
    ),
  );
  return sections.filter((candidate) => candidate.modules.length > 0);
}

function section(title: string, modules: TranscriptModule[]): TranscriptSection {
  return { title, modules, workload: sum(modules, 'workload'), credits: sum(modules, 'credits') };
}

export function sum(modules: TranscriptModule[], field: 'workload' | 'credits'): number {
  return modules.reduce((total, module) => total + (module[field] ?? 0), 0);
}

export function formatGrade(grade: number | string | null | undefined): string | undefined {
  if (grade === null || grade === undefined || grade === '') return undefined;
  const value = Number(grade);
  if (!Number.isFinite(value) || value < 0 || value > 10) {
    throw new DocumentError('TRANSCRIPT_INVALID', `The grade ${String(grade)} is not between 0 and 10.`);
  }
  return value.toFixed(2);
}

/** Calendar dates as YYYY-MM-DD; Date values are read in UTC so every server prints the same day. */
export function formatTranscriptDate(date: string | Date | null | undefined): string | undefined {
  if (date === null || date === undefined || date === '') return undefined;
  if (date instanceof Date && Number.isNaN(date.getTime())) {
    throw new DocumentError('TRANSCRIPT_INVALID', 'A transcript date is invalid.');
  }
  const text = date instanceof Date ? date.toISOString() : date;
  const match = /^\d{4}-\d{2}-\d{2}/.exec(text);
  if (!match) throw new DocumentError('TRANSCRIPT_INVALID', `The date ${text} is not YYYY-MM-DD.`);
  return match[0];
}

export function formatAmount(value: number | null | undefined): string {
  return value === null || value === undefined ? '\u2013' : String(value);
}

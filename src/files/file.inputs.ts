import { Field, InputType } from 'type-graphql';
import { ListArgsType } from '../graphql/connection.js';
import { MaxChars, NotBlank, Present } from '../graphql/validators.js';

@InputType({ description: 'The metadata to change (PATCH): only the name; content never changes.' })
export class UpdateFileInput {
  @Field({ nullable: true, description: 'The name the file was uploaded with (or renamed to).' })
  @Present()
  @NotBlank()
  @MaxChars(255)
  originalName?: string;
}

@InputType({ description: 'Every changeable field of a file (PUT): the name.' })
export class FileInput extends UpdateFileInput {
  @Field({ description: 'The name the file was uploaded with (or renamed to).' })
  declare originalName: string;
}

@InputType({ description: 'Equality filters on files.' })
export class FileWhere {
  @Field(() => Date, { nullable: true, description: '`null` selects files no certificate uses.' })
  usedAt?: Date | null;

  @Field({ nullable: true, description: 'Only records whose mime type equals this.' })
  mimeType?: string;

  @Field({ nullable: true, description: 'Only records whose extension equals this.' })
  extension?: string;

  @Field({ nullable: true, description: 'Only records whose original name equals this.' })
  originalName?: string;
}

export const FileListArgs = ListArgsType('File', FileWhere, ['original_name', 'mime_type', 'extension', 'size', 'used_at', 'created_at', 'updated_at']);

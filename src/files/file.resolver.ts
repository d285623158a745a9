import type { GraphQLResolveInfo } from 'graphql';
import { GraphQLUpload } from 'graphql-upload-ts';
import type { Readable, Row } from '../db/rows.js';
import { Arg, Args, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root, Info } from 'type-graphql';
import type { RequestContext } from '../context/request-context.js';
import { asksForTotal, type Connection, ConnectionType, toConnection } from '../graphql/connection.js';
import type { ListArgs } from '../resources/resource.service.js';
import { registerNodeType } from '../graphql/node.js';
import { StoredFile } from './file.entity.js';
import { FileInput, FileListArgs, UpdateFileInput } from './file.inputs.js';
import { files } from './file.service.js';
import { downloadUrl } from './file-runtime.js';
import type { SpooledUpload } from './file-spool.js';
import { incomingUpload } from './file-upload.js';

const FileConnection = ConnectionType(StoredFile, 'File');
registerNodeType('File', (ctx, uuid) => files.get(ctx, uuid));

/** Files have no `createFile`: they come in through `uploadFiles`. */
@Resolver(() => StoredFile)
export class FileResolver {
  @Query(() => StoredFile, { name: 'file', nullable: true, description: 'One File of this tenant by uuid; null with a NOT_FOUND error when there is none.' })
  one(@Arg('uuid', () => ID, { description: 'The file’s uuid.' }) uuid: string, @Ctx() ctx: RequestContext): Promise<StoredFile> {
    return files.get(ctx, uuid);
  }

  @Query(() => FileConnection, { name: 'files', description: 'Files of this tenant, filtered, sorted and paged.' })
  async many(@Args(() => FileListArgs) args: ListArgs, @Ctx() ctx: RequestContext, @Info() info: GraphQLResolveInfo): Promise<Connection<Row<StoredFile>>> {
    return toConnection(await files.list(ctx, { ...args, withTotal: asksForTotal(info) }));
  }

  @Mutation(() => [StoredFile], {
    description:
      'Stores PDF, PNG or SVG files, all or none; content already stored in this tenant returns its existing File. Send as a GraphQL multipart request.',
  })
  uploadFiles(
    @Arg('files', () => [GraphQLUpload], { description: 'The files, as multipart request parts.' }) uploads: Promise<SpooledUpload>[],
    @Ctx() ctx: RequestContext,
  ): Promise<StoredFile[]> {
    return files.upload(ctx, uploads.map(incomingUpload));
  }

  @Mutation(() => StoredFile, { description: 'Renames (PATCH); content never changes.' })
  updateFile(
    @Arg('uuid', () => ID, { description: 'The file’s uuid.' }) uuid: string,
    @Arg('input', () => UpdateFileInput, { description: 'The new name.' }) input: UpdateFileInput,
    @Ctx() ctx: RequestContext,
  ): Promise<StoredFile> {
    return files.update(ctx, uuid, input);
  }

  @Mutation(() => StoredFile, { description: 'Replaces the metadata (PUT): the name.' })
  replaceFile(
    @Arg('uuid', () => ID, { description: 'The file’s uuid.' }) uuid: string,
    @Arg('input', () => FileInput, { description: 'The new name.' }) input: FileInput,
    @Ctx() ctx: RequestContext,
  ): Promise<StoredFile> {
    return files.replace(ctx, uuid, input);
  }

  @Mutation(() => Boolean, { description: 'Soft delete; refused (CONFLICT) while a certificate uses the file.' })
  deleteFile(@Arg('uuid', () => ID, { description: 'The file’s uuid.' }) uuid: string, @Ctx() ctx: RequestContext): Promise<boolean> {
    return files.delete(ctx, uuid);
  }

  @Mutation(() => Int, { description: 'Soft-deletes all of them or none: any unknown uuid (BAD_USER_INPUT) or used file (CONFLICT) refuses the batch.' })
  deleteFiles(@Arg('uuids', () => [ID], { description: 'The uuids of the files to delete.' }) uuids: string[], @Ctx() ctx: RequestContext): Promise<number> {
    return files.deleteMany(ctx, uuids);
  }

  @FieldResolver(() => String, { name: 'file', description: 'Absolute download URL; public, no token needed.' })
  downloadUrl(@Root() file: Readable<StoredFile>, @Ctx() ctx: RequestContext): string {
    return downloadUrl(ctx.publicBaseUrl, file.uuid);
  }
}

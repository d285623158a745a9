import { createHash } from 'node:crypto';

/**
 * The Blockcerts Merkle tree over SHA-256 leaf hashes (hex): a parent is SHA-256(left ‖ right) of the
 * raw bytes, an odd node at the end of a level is carried up unchanged. A tree of one leaf has that
 * leaf as its root and an empty path.
 */

export type MerklePathStep = { left: string } | { right: string };

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest();

function nextLevel(level: Buffer[]): Buffer[] {
  const parents: Buffer[] = [];
  for (let index = 0; index < level.length; index += 2) {
    parents.push(index + 1 < level.length ? sha256(Buffer.concat([level[index], level[index + 1]])) : level[index]);
  }
  return parents;
}

/** The root and, for every leaf in order, its path to the root. */
export function merkleTree(leaves: readonly string[]): { root: string; paths: MerklePathStep[][] } {
  if (leaves.length === 0) throw new Error('A Merkle tree needs at least one leaf.');
  let level: Buffer[] = leaves.map((leaf) => Buffer.from(leaf, 'hex'));
  const paths: MerklePathStep[][] = leaves.map(() => []);
  let positions = leaves.map((_, index) => index);
  while (level.length > 1) {
    positions = positions.map((position, leaf) => {
      const sibling = position ^ 1;
      if (sibling < level.length) {
        const hex = level[sibling].toString('hex');
        paths[leaf].push(position % 2 === 0 ? { right: hex } : { left: hex });
      }
      return position >> 1;
    });
    level = nextLevel(level);
  }
  return { root: level[0].toString('hex'), paths };
}

/** The root a leaf and its path lead to (what a verifier recomputes). */
export function rootFromPath(leaf: string, path: readonly MerklePathStep[]): string {
  let node: Buffer = Buffer.from(leaf, 'hex');
  for (const step of path) {
    node = 'left' in step ? sha256(Buffer.concat([Buffer.from(step.left, 'hex'), node])) : sha256(Buffer.concat([node, Buffer.from(step.right, 'hex')]));
  }
  return node.toString('hex');
}

/** The Blockcerts Ethereum network names a MerkleProof2019 anchor can carry (LD Merkle Proof 2019 keymap). */
export const ANCHOR_NETWORKS = ['mainnet', 'sepolia', 'goerli', 'ropsten', 'rinkeby'] as const;
export type AnchorNetwork = (typeof ANCHOR_NETWORKS)[number];

/** Where a network's transactions are shown when ANCHOR_TX_URL_TEMPLATE is unset. */
export const EXPLORER_TEMPLATES: Partial<Record<AnchorNetwork, string>> = {
  mainnet: 'https://etherscan.io/tx/{hash}',
  sepolia: 'https://sepolia.etherscan.io/tx/{hash}',
};

/** Redis pub/sub channel on which cancellations reach the workers running them. */
export const cancelChannel = (prefix: string): string => `${prefix}:execution-cancel`;

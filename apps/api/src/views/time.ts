/** Unix ms, or null: the API's only timestamp form. */
export const ms = (date: Date | null | undefined): number | null => (date ? date.getTime() : null);

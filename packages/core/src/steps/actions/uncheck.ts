import { defineElementAction } from '../element-action';

/** uncheck: unchecks a checkbox. */
export const uncheckAction = defineElementAction('uncheck');

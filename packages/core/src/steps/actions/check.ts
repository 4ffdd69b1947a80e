import { defineElementAction } from '../element-action';

/** check: checks a checkbox or radio button. */
export const checkAction = defineElementAction('check');

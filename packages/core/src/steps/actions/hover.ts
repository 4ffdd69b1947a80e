import { defineElementAction } from '../element-action';

/** hover: moves the mouse over an element. */
export const hoverAction = defineElementAction('hover');

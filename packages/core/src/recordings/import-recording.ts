import { AssertedEventType, parseStep, StepType, type Schema } from '@puppeteer/replay';
import { AppError, type ValidationIssue } from '../errors';
import { URL_NOT_ALLOWED, writableUrlProblem } from '../navigable-url';
import { unknownSelectorPrefix, type SelectorAlternative } from '../steps/element-selector';
import { normalizeUrl, type NavigationWait } from '../steps/navigation-wait';
import { StepSchema, type StepInput } from '../steps/registry';
import { isModifierKey } from './key-chords';
import { CredentialBindingsSchema, type CredentialBinding, type RecordingWarning } from './recording-schema';
import type { CredentialValue } from '../sessions/credential';

/** A bot has at most this many steps (as PUT /steps allows). */
export const MAX_IMPORTED_STEPS = 500;

export interface ImportedRecording {
  title: string;
  /** The bot's targetUrl: the one given, else the recording's first navigate URL (undefined without one). */
  targetUrl: string | undefined;
  steps: StepInput[];
  warnings: RecordingWarning[];
}

const RECORDING_FIELDS = new Set(['title', 'timeout', 'selectorAttribute', 'steps', 'credentials']);
const MOUSE_BUTTONS: Record<string, 'left' | 'right' | 'middle' | undefined> = {
  primary: undefined,
  secondary: 'right',
  auxiliary: 'middle',
};

/** Fields the Recorder writes that do not change how botfleet runs the step: dropped without a warning. */
const QUIETLY_DROPPED: Partial<Record<string, readonly string[]>> = {
  click: ['offsetX', 'offsetY'],
  doubleClick: ['offsetX', 'offsetY'],
  setViewport: ['isLandscape'],
};

/** One converted step, with the recording step it came from (for warnings and errors). */
interface Converted {
  from: number;
  step: Record<string, unknown>;
}

/**
 * Converts a Chrome DevTools Recorder recording into botfleet steps. Each step is parsed by
 * @puppeteer/replay (the Recorder's own format library); what botfleet cannot run refuses the
 * whole recording (400 invalid_recording, `details` naming each step as `steps.<i>`), what it
 * leaves out or changes becomes a warning. A first navigate to `targetUrl` is dropped: every run
 * opens the bot's targetUrl anyway. A `change` step that the recording's `credentials` bind fills
 * from the credential; a binding of any other step is refused like an unrunnable step (`credentials.<i>`).
 */
export function importRecording(recording: unknown, options: { targetUrl?: string } = {}): ImportedRecording {
  const { title, timeout, rawSteps, credentials, warnings } = readRecording(recording);
  const problems: ValidationIssue[] = [];
  const parsed: { index: number; raw: Record<string, unknown>; step: Schema.Step }[] = [];
  rawSteps.forEach((raw, index) => {
    try {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('a step must be an object');
      const step = parseStep(raw);
      const before = problems.length;
      refuseUnrunnable(step, index, problems);
      // A refused step is named once, by why it cannot run, not again by its conversion.
      if (problems.length === before) parsed.push({ index, raw: raw as Record<string, unknown>, step });
    } catch (error) {
      problems.push({ path: `steps.${index}`, message: parseMessage(error) });
    }
  });
  const bound = bindCredentials(credentials, parsed, rawSteps.length, problems);
  const firstNavigate = parsed.find(({ step }) => step.type === StepType.Navigate)?.step;
  const targetUrl = options.targetUrl ?? (firstNavigate?.type === StepType.Navigate ? firstNavigate.url : undefined);

  const converted: Converted[] = [];
  const keys = new KeyChords(converted, warnings);
  let navigated = false;
  for (const { index, raw, step } of parsed) {
    warnUnknownFields(raw, step, index, warnings);
    const common = commonFields(step, timeout);
    const navigation = navigationWait(step);
    const add = (fields: Record<string, unknown>) => converted.push({ from: index, step: { ...fields, ...common } });
    switch (step.type) {
      case StepType.SetViewport:
        if (step.deviceScaleFactor !== 1 || step.isMobile || step.hasTouch) {
          warnings.push({
            recordingStep: index,
            message: 'deviceScaleFactor, isMobile and hasTouch are not emulated; only the viewport size is set',
          });
        }
        add({ action: 'setViewport', width: Math.round(step.width), height: Math.round(step.height) });
        break;
      case StepType.Navigate: {
        const first = !navigated;
        navigated = true;
        if (first && targetUrl !== undefined && normalizeUrl(step.url) === normalizeUrl(targetUrl)) break;
        add({ action: 'goto', url: step.url });
        break;
      }
      case StepType.Click:
      case StepType.DoubleClick: {
        if (step.deviceType !== undefined && step.deviceType !== 'mouse') {
          warnings.push({ recordingStep: index, message: `deviceType '${step.deviceType}' is replayed with a mouse` });
        }
        if (step.duration !== undefined) {
          warnings.push({ recordingStep: index, message: 'duration is ignored: the click is a plain click' });
        }
        const button = step.button === undefined ? undefined : MOUSE_BUTTONS[step.button];
        add({
          action: 'click',
          ...elementFields(step),
          ...(button ? { button } : {}),
          ...(step.type === StepType.DoubleClick ? { clickCount: 2 } : {}),
          ...navigation,
        });
        break;
      }
      case StepType.Hover:
        add({ action: 'hover', ...elementFields(step) });
        warnUnusedNavigation(step, index, warnings);
        break;
      case StepType.Change:
        // Typed key by key, as Chrome's replay does: pages that listen to key events see them.
        add({
          action: 'fill',
          ...elementFields(step),
          value: bound.get(index) ?? step.value,
          keystrokes: true,
          ...navigation,
        });
        break;
      case StepType.KeyDown:
        keys.down(step.key, index, { ...common, ...navigation });
        break;
      case StepType.KeyUp:
        keys.up(step.key, index, navigation);
        break;
      case StepType.Scroll: {
        const selectors = 'selectors' in step ? step.selectors : undefined;
        add({
          action: 'scroll',
          ...(selectors ? { selector: selectors } : {}),
          ...(step.frame?.length ? { frame: step.frame } : {}),
          x: step.x ?? 0,
          y: step.y ?? 0,
        });
        warnUnusedNavigation(step, index, warnings);
        break;
      }
      case StepType.WaitForElement:
        add({
          action: 'waitFor',
          ...elementFields(step),
          ...definedOnly({
            count: step.count,
            operator: step.operator,
            visible: step.visible,
            properties: step.properties,
            attributes: step.attributes,
          }),
        });
        break;
      case StepType.WaitForExpression:
        add({ action: 'waitFor', expression: step.expression, ...(step.frame?.length ? { frame: step.frame } : {}) });
        break;
      case StepType.EmulateNetworkConditions:
      case StepType.Close:
        warnings.push({ recordingStep: index, message: `step type '${step.type}' is not supported and was skipped` });
        break;
      case StepType.CustomStep:
        // Never reached: refuseUnrunnable refused it, and refused steps are not converted.
        break;
      default:
        problems.push({
          path: `steps.${index}`,
          message: `step type '${(step as { type: string }).type}' is not supported`,
        });
    }
  }
  keys.finish();

  const steps: StepInput[] = [];
  for (const { from, step } of converted) {
    const result = StepSchema.safeParse(step);
    if (result.success) steps.push(result.data);
    else {
      const issue = result.error.issues[0];
      const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
      problems.push({ path: `steps.${from}`, message: `${where}${issue?.message ?? 'cannot be converted'}` });
    }
  }
  if (problems.length === 0 && steps.length > MAX_IMPORTED_STEPS) {
    problems.push({ path: 'steps', message: `becomes ${steps.length} steps; a bot has at most ${MAX_IMPORTED_STEPS}` });
  }
  if (problems.length > 0) throw invalidRecording(problems);
  return { title, targetUrl, steps, warnings };
}

/** The credential each bound recording step fills from; a binding of anything but a parsed change step is a problem. */
function bindCredentials(
  bindings: readonly CredentialBinding[],
  parsed: readonly { index: number; step: Schema.Step }[],
  stepCount: number,
  problems: ValidationIssue[],
): Map<number, CredentialValue> {
  const bound = new Map<number, CredentialValue>();
  bindings.forEach(({ step: index, credential, field }, i) => {
    const path = `credentials.${i}`;
    if (index >= stepCount) {
      problems.push({ path, message: `binds recording step ${index}, which the recording does not have` });
    } else if (bound.has(index)) {
      problems.push({ path, message: `binds recording step ${index} a second time` });
    } else {
      const type = parsed.find((p) => p.index === index)?.step.type;
      // A step refused on its own (no parsed entry) is already named by why it cannot run.
      if (type !== undefined && type !== StepType.Change) {
        problems.push({
          path,
          message: `binds recording step ${index}, a '${type}' step: only a change step takes a credential`,
        });
      }
      bound.set(index, { credential, field });
    }
  });
  return bound;
}

function invalidRecording(problems: ValidationIssue[]): AppError {
  const [first] = problems;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
  return new AppError(
    'invalid_recording',
    `The recording cannot be run: ${first!.path}: ${first!.message}${more}`,
    problems,
  );
}

function readRecording(recording: unknown) {
  if (recording === null || typeof recording !== 'object' || Array.isArray(recording)) {
    throw invalidRecording([{ path: '(root)', message: 'a recording must be a JSON object' }]);
  }
  const record = recording as Record<string, unknown>;
  const problems: ValidationIssue[] = [];
  if (typeof record.title !== 'string') problems.push({ path: 'title', message: 'must be a string' });
  if (!Array.isArray(record.steps)) problems.push({ path: 'steps', message: 'must be an array' });
  const timeout = record.timeout;
  if (
    timeout !== undefined &&
    (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1 || timeout > 600_000)
  ) {
    problems.push({ path: 'timeout', message: 'must be an integer number of ms from 1 to 600000' });
  }
  const credentials = CredentialBindingsSchema.optional().safeParse(record.credentials);
  if (!credentials.success) {
    for (const issue of credentials.error.issues) {
      problems.push({ path: ['credentials', ...issue.path].map(String).join('.'), message: issue.message });
    }
  }
  if (problems.length > 0) throw invalidRecording(problems);
  const warnings: RecordingWarning[] = Object.keys(record)
    .filter((key) => !RECORDING_FIELDS.has(key))
    .map((key) => ({ recordingStep: null, message: `field '${key}' is not supported and was ignored` }));
  return {
    title: record.title as string,
    timeout: timeout as number | undefined,
    rawSteps: record.steps as unknown[],
    credentials: credentials.data ?? [],
    warnings,
  };
}

/**
 * Refuses what parses but cannot run: custom steps, navigations to other schemes than http(s),
 * other targets, unknown selector prefixes, mouse buttons.
 */
function refuseUnrunnable(step: Schema.Step, index: number, problems: ValidationIssue[]): void {
  const path = `steps.${index}`;
  if (step.type === StepType.CustomStep) {
    problems.push({ path, message: `step type 'customStep' is not supported` });
    return;
  }
  if (step.type === StepType.Navigate) {
    // The same write-time rule as a goto step's url (which this step becomes, or the targetUrl).
    const problem = writableUrlProblem(step.url);
    if (problem !== null) problems.push({ path, message: `${URL_NOT_ALLOWED}: ${problem}` });
  }
  if ('target' in step && step.target !== undefined && step.target !== 'main') {
    problems.push({ path: `${path}.target`, message: `target '${step.target}' is not supported: only the main page` });
  }
  if ((step.type === StepType.Click || step.type === StepType.DoubleClick) && step.button !== undefined) {
    if (!(step.button in MOUSE_BUTTONS)) {
      problems.push({ path: `${path}.button`, message: `mouse button '${step.button}' is not supported` });
    }
  }
  const selectors = 'selectors' in step && step.selectors ? step.selectors : [];
  selectors.forEach((alternative, i) => {
    const links = typeof alternative === 'string' ? [alternative] : alternative;
    links.forEach((link, j) => {
      const prefix = unknownSelectorPrefix(link);
      if (prefix !== null) {
        problems.push({
          path: `${path}.selectors.${i}${typeof alternative === 'string' ? '' : `.${j}`}`,
          message: `selector prefix '${prefix}/' is not supported (aria/, xpath/, text/, pierce/ or CSS)`,
        });
      }
    });
  });
}

/** @puppeteer/replay's message, in the API's words for an unknown type. */
function parseMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const unknownType = /^Step type (.+) is not supported$/.exec(message);
  return unknownType ? `step type '${unknownType[1]}' is not supported` : message;
}

function warnUnknownFields(
  raw: Record<string, unknown>,
  step: Schema.Step,
  index: number,
  warnings: RecordingWarning[],
) {
  const known = new Set([...Object.keys(step), 'type', ...(QUIETLY_DROPPED[step.type] ?? [])]);
  for (const key of Object.keys(raw)) {
    if (!known.has(key))
      warnings.push({ recordingStep: index, message: `field '${key}' is not supported and was ignored` });
  }
}

function commonFields(step: Schema.Step, recordingTimeout: number | undefined): Record<string, unknown> {
  const timeout = step.timeout ?? recordingTimeout;
  return timeout === undefined ? {} : { timeout };
}

function elementFields(step: Schema.StepWithSelectors): { selector: SelectorAlternative[]; frame?: number[] } {
  return { selector: step.selectors, ...(step.frame?.length ? { frame: step.frame } : {}) };
}

/** `waitForNavigation` from the step's asserted navigation (its URL when recorded). */
function navigationWait(step: Schema.Step): { waitForNavigation?: NavigationWait } {
  if (step.type === StepType.Navigate) return {};
  const event = step.assertedEvents?.find((e) => e.type === AssertedEventType.Navigation);
  if (!event) return {};
  return { waitForNavigation: event.url === undefined || event.url === '' ? {} : { url: event.url } };
}

function warnUnusedNavigation(step: Schema.Step, index: number, warnings: RecordingWarning[]): void {
  if (step.assertedEvents?.length) {
    warnings.push({ recordingStep: index, message: `assertedEvents on a ${step.type} step are not waited for` });
  }
}

function definedOnly(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/**
 * keyDown/keyUp pairs become `press` steps: a key pressed while modifiers are held becomes one
 * chord (`Shift+A`), a modifier pressed and released alone a press of it. A keyUp's asserted
 * navigation joins the press it ends.
 */
class KeyChords {
  private readonly held: { key: string; index: number; used: boolean; fields: Record<string, unknown> }[] = [];
  /** Keys pressed and not released yet, with the converted press each belongs to. */
  private readonly pressed = new Map<string, Converted>();

  constructor(
    private readonly out: Converted[],
    private readonly warnings: RecordingWarning[],
  ) {}

  down(key: string, index: number, fields: Record<string, unknown>): void {
    if (isModifierKey(key)) {
      this.held.push({ key, index, used: false, fields });
      return;
    }
    for (const modifier of this.held) modifier.used = true;
    const press: Converted = {
      from: index,
      step: { action: 'press', key: [...this.held.map((m) => m.key), key].join('+'), ...fields },
    };
    this.out.push(press);
    this.pressed.set(key, press);
  }

  up(key: string, index: number, navigation: { waitForNavigation?: NavigationWait }): void {
    const press = this.pressed.get(key);
    if (press) {
      this.pressed.delete(key);
      Object.assign(press.step, navigation);
      return;
    }
    const at = this.held.findIndex((m) => m.key === key);
    if (at >= 0) {
      const [modifier] = this.held.splice(at, 1);
      if (modifier && !modifier.used) {
        this.out.push({ from: modifier.index, step: { action: 'press', key, ...modifier.fields, ...navigation } });
      }
      return;
    }
    this.warnings.push({ recordingStep: index, message: `keyUp '${key}' without its keyDown was skipped` });
  }

  /**
   * Puts the steps back in recording order: a lone modifier's press is only known at its keyUp,
   * after steps recorded later may have been converted. (A key never released kept its press.)
   */
  finish(): void {
    this.out.sort((a, b) => a.from - b.from);
  }
}

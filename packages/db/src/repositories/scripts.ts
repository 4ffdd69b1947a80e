import { newId } from '@botfleet/core';
import { recordBotVersion } from './bot-definition';
import type { Db } from './db-handle';
import { inTransaction } from './in-transaction';

/*
 * A bot has at most one `generated` script (rewritten whenever its steps change) and any number
 * of `handwritten` ones. Exactly one script is active once any exists: the generated script
 * stands for the recorded steps, so it is active whenever no handwritten script is.
 */

export async function listScripts(db: Db, botId: string) {
  return db.script.findMany({ where: { botId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** The script of this bot, if the bot belongs to this organization. */
export async function findScript(db: Db, organizationId: string, botId: string, scriptId: string) {
  return db.script.findFirst({ where: { id: scriptId, botId, bot: { organizationId } } });
}

/** Restores the invariant after a change: if nothing is active, the generated script is. */
async function ensureOneActive(db: Db, botId: string): Promise<void> {
  const active = await db.script.count({ where: { botId, active: true } });
  if (active === 0) await db.script.updateMany({ where: { botId, origin: 'generated' }, data: { active: true } });
}

async function activate(db: Db, botId: string, scriptId: string): Promise<void> {
  await db.script.updateMany({ where: { botId, active: true, NOT: { id: scriptId } }, data: { active: false } });
  await db.script.update({ where: { id: scriptId }, data: { active: true } });
}

/** Writes the generated script for the current steps (call in the transaction that writes them). */
export async function saveGeneratedScript(db: Db, botId: string, source: string): Promise<void> {
  const existing = await db.script.findFirst({ where: { botId, origin: 'generated' } });
  if (existing) {
    await db.script.update({ where: { id: existing.id }, data: { source } });
  } else {
    await db.script.create({
      data: { id: newId('scr'), botId, name: 'Generated from recorded steps', origin: 'generated', source },
    });
  }
  await ensureOneActive(db, botId);
}

// The writes below are one transaction each: the one-active invariant holds between statements,
// and each records the bot's next version (none when it changed nothing, e.g. activating the
// active script).

export async function createHandwrittenScript(
  db: Db,
  botId: string,
  input: { name: string; source: string; active?: boolean },
) {
  return inTransaction(db, async (tx) => {
    const script = await tx.script.create({
      data: { id: newId('scr'), botId, name: input.name, origin: 'handwritten', source: input.source },
    });
    if (input.active) await activate(tx, botId, script.id);
    await ensureOneActive(tx, botId);
    await recordBotVersion(tx, botId);
    return tx.script.findUniqueOrThrow({ where: { id: script.id } });
  });
}

export async function updateScript(
  db: Db,
  botId: string,
  scriptId: string,
  patch: { name?: string; source?: string; active?: boolean },
) {
  const { active, ...fields } = patch;
  return inTransaction(db, async (tx) => {
    if (Object.keys(fields).length > 0) await tx.script.update({ where: { id: scriptId }, data: fields });
    if (active === true) await activate(tx, botId, scriptId);
    if (active === false) await tx.script.update({ where: { id: scriptId }, data: { active: false } });
    await ensureOneActive(tx, botId);
    await recordBotVersion(tx, botId);
    return tx.script.findUniqueOrThrow({ where: { id: scriptId } });
  });
}

export async function deleteScript(db: Db, botId: string, scriptId: string): Promise<void> {
  await inTransaction(db, async (tx) => {
    await tx.script.delete({ where: { id: scriptId } });
    await ensureOneActive(tx, botId);
    await recordBotVersion(tx, botId);
  });
}

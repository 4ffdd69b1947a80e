-- Credential origins (docs/sessions.md): where a credential's values may be filled. Credentials
-- stored before get none, and their fills fail with credential_origin_mismatch until an admin
-- key sets them.
ALTER TABLE "Credential" ADD COLUMN "origins" TEXT[] DEFAULT ARRAY[]::TEXT[];

;;; agentls-fetch.el --- Fetch the agentls server from the releases  -*- lexical-binding: t; -*-

;; Version: 0.1
;; Package-Requires: ((emacs "28.1"))

;;; Commentary:

;; When `agentls-program' names plain "agentls" and it is not on
;; `exec-path', the first `agentls-connect' offers to download this
;; platform's release archive: it asks first (never a silent download),
;; fetches the archive and checksums.txt from `agentls-fetch-url', checks
;; the archive's SHA-256, and unpacks the server into
;; `agentls-fetch-directory', which is used from then on.
;; `agentls-install-server' does the same on demand.

;;; Code:

(require 'subr-x)

(defvar agentls-program)

(defcustom agentls-fetch-url "https://github.com/agentls/agentls/releases/latest/download"
  "Where release archives and their checksums.txt are downloaded from."
  :type 'string
  :group 'agentls)

(defcustom agentls-fetch-directory (locate-user-emacs-file "agentls/bin/")
  "Where a downloaded agentls server is kept."
  :type 'directory
  :group 'agentls)

(defcustom agentls-fetch-offer t
  "Non-nil: offer to download agentls when it is not on `exec-path'."
  :type 'boolean
  :group 'agentls)

(defvar agentls--fetch-asked nil
  "Non-nil once the download was offered in this session.")

(defun agentls-fetch--exe ()
  (if (eq system-type 'windows-nt) "agentls.exe" "agentls"))

(defun agentls-fetch-archive ()
  "The release archive's name for this machine, or nil."
  (let ((os (pcase system-type
              ('gnu/linux "linux") ('darwin "darwin") ('windows-nt "windows")))
        (arch (cond ((string-match-p "\\`\\(x86_64\\|amd64\\)" system-configuration) "amd64")
                    ((string-match-p "\\`\\(aarch64\\|arm64\\)" system-configuration) "arm64"))))
    (and os arch
         (format "agentls_%s_%s.%s" os arch (if (equal os "windows") "zip" "tar.gz")))))

(defun agentls-fetch-installed ()
  "The path of a server downloaded earlier, or nil."
  (let ((p (expand-file-name (agentls-fetch--exe) agentls-fetch-directory)))
    (and (file-executable-p p) p)))

(defun agentls-fetch--get (url file)
  "Download URL into FILE, or signal an error."
  (if (executable-find "curl")
      (with-temp-buffer
        (unless (eq 0 (call-process "curl" nil t nil "-fsSL" "--retry" "2" "-o" file url))
          (error "Cannot download %s: %s" url (string-trim (buffer-string)))))
    (url-copy-file url file t)))

(defun agentls-fetch--sha256 (file)
  (with-temp-buffer
    (set-buffer-multibyte nil)
    (insert-file-contents-literally file)
    (secure-hash 'sha256 (current-buffer))))

(defun agentls-fetch-download (&optional url dir)
  "Download this platform's agentls from URL into DIR; return its path.
URL defaults to `agentls-fetch-url', DIR to `agentls-fetch-directory'.
The archive's SHA-256 must match its line in checksums.txt; otherwise
nothing is installed and an error says why."
  (let* ((url (or url agentls-fetch-url))
         (dir (file-name-as-directory (expand-file-name (or dir agentls-fetch-directory))))
         (name (or (agentls-fetch-archive)
                   (user-error "No agentls release for %s" system-configuration)))
         (tmp (make-temp-file "agentls-fetch" t)))
    (unwind-protect
        (let* ((archive (expand-file-name name tmp))
               (sums (expand-file-name "checksums.txt" tmp))
               want got)
          (agentls-fetch--get (concat url "/" name) archive)
          (agentls-fetch--get (concat url "/checksums.txt") sums)
          (with-temp-buffer
            (insert-file-contents sums)
            (when (re-search-forward (concat "^\\([0-9a-fA-F]+\\)[ \t]+\\*?" (regexp-quote name) "$") nil t)
              (setq want (downcase (match-string 1)))))
          (unless want (error "checksums.txt has no line for %s" name))
          (setq got (agentls-fetch--sha256 archive))
          (unless (equal got want)
            (error "%s: SHA-256 %s, checksums.txt says %s" name got want))
          (let ((out (expand-file-name "x" tmp)))
            (make-directory out)
            (with-temp-buffer
              (unless (eq 0 (call-process "tar" nil t nil "-xf" archive "-C" out))
                (error "Cannot unpack %s: %s" name (string-trim (buffer-string)))))
            (let ((exe (expand-file-name (agentls-fetch--exe) out))
                  (dest (expand-file-name (agentls-fetch--exe) dir)))
              (unless (file-exists-p exe) (error "%s holds no %s" name (agentls-fetch--exe)))
              (make-directory dir t)
              (rename-file exe dest t)
              (set-file-modes dest #o755)
              dest)))
      (delete-directory tmp t))))

;;;###autoload
(defun agentls-install-server ()
  "Download the agentls server from the releases, after asking."
  (interactive)
  (let ((name (agentls-fetch-archive)))
    (when (y-or-n-p (format "Download %s from %s into %s (SHA-256 checked)? "
                            name agentls-fetch-url agentls-fetch-directory))
      (message "agentls: installed %s" (agentls-fetch-download)))))

(defun agentls--program (&optional no-offer)
  "The command that starts the server: `agentls-program', with plain
\"agentls\" replaced by a downloaded server when it is not on
`exec-path'.  Without NO-OFFER, the first call that finds neither offers
to download it; nil when there is still none."
  (let ((exe (car agentls-program)))
    (cond
     ((not (equal exe "agentls")) agentls-program)
     ((executable-find exe) agentls-program)
     ((agentls-fetch-installed) (cons (agentls-fetch-installed) (cdr agentls-program)))
     ((or no-offer (not agentls-fetch-offer) agentls--fetch-asked (not (agentls-fetch-archive))) nil)
     (t
      (setq agentls--fetch-asked t)
      (when (y-or-n-p (format "agentls is not on exec-path.  Download %s from %s into %s (SHA-256 checked)? "
                              (agentls-fetch-archive) agentls-fetch-url agentls-fetch-directory))
        (message "agentls: downloading %s..." (agentls-fetch-archive))
        (cons (agentls-fetch-download) (cdr agentls-program)))))))

(provide 'agentls-fetch)
;;; agentls-fetch.el ends here

;;; agentls.el --- Run the agentls coding agent through Eglot  -*- lexical-binding: t; -*-

;; Version: 0.1
;; Package-Requires: ((emacs "28.1") (eglot "1.9"))
;; URL: https://github.com/agentls/agentls
;; Keywords: tools, languages

;;; Commentary:

;; agentls is a language server that runs a coding agent.  Eglot already
;; applies its edits (workspace/applyEdit), shows its diagnostics and
;; offers its code actions; this file adds what Eglot cannot know:
;;
;;  - `agentls-run', `agentls-cancel', `agentls-status', `agentls-accept',
;;    `agentls-reject' and `agentls-undo', which call the server's
;;    workspace/executeCommand commands;
;;  - a *agentls* buffer that renders the agentls/event stream live
;;    (model text, tool calls and results, checks, token usage);
;;  - `agentls-mode-line', the running task's progress for the mode line.
;;
;; Set-up (see README.md):
;;
;;   (require 'agentls)
;;   (agentls-eglot-setup '(python-mode go-mode text-mode))
;;   ;; then M-x eglot in a buffer of one of those modes.
;;
;; Eglot gives a buffer one server, so in those modes agentls takes the
;; place of the language's own server.

;; Over 400 lines: tasks, the conversation buffer and the commands share
;; state; the connection (agentls-conn.el) and review (agentls-review.el)
;; live beside it.

;;; Code:

(require 'cl-lib)
(require 'subr-x)
(require 'eglot)
(require 'json)
(require 'jsonrpc)
(require 'agentls-conn)
(declare-function agentls--history-label "agentls-review")

(defgroup agentls nil
  "The agentls coding agent, through Eglot."
  :group 'tools
  :prefix "agentls-")

(defcustom agentls-program '("agentls" "serve")
  "The agentls server command and its arguments."
  :type '(repeat string))

(defcustom agentls-initialization-options nil
  "Plist sent as initializationOptions, e.g.
\\='(:llm (:model \"gpt-4.1\") :verify (:enabled t)).  nil sends {}."
  :type 'sexp)

(defcustom agentls-display-stream t
  "Non-nil: show the *agentls* buffer when a task starts."
  :type 'boolean)

(defcustom agentls-display-action
  '((display-buffer-reuse-window display-buffer-in-side-window)
    (side . bottom) (slot . 0) (window-height . 0.33))
  "How *agentls* is shown: a `display-buffer' action.
The default is a side window along the bottom, a third of the frame
high.  An entry for \"*agentls*\" in `display-buffer-alist' overrides it."
  :type 'sexp)

(defun agentls--display (buf)
  "Show BUF (*agentls*) as `agentls-display-action' says."
  (display-buffer buf agentls-display-action))

(defcustom agentls-flush-changes t
  "Non-nil: send pending buffer changes before every agentls command.
Eglot 1.9 sends didChange only after `eglot-send-changes-idle-time'
and not before `workspace/executeCommand', so without this the agent
may read a buffer as it was half a second ago."
  :type 'boolean)

(defclass agentls-server (eglot-lsp-server) ()
  :documentation "An Eglot connection to agentls.")

;;;###autoload
(defun agentls-eglot-setup (modes)
  "Make Eglot use agentls for the major modes MODES (a list of symbols)."
  (let ((contact (append (list 'agentls-server)
                         (or (agentls--program t) agentls-program)
                         (list :initializationOptions
                               (lambda (_server)
                                 (or agentls-initialization-options
                                     (make-hash-table)))))))
    (setq eglot-server-programs
          (cons (cons modes contact)
                (cl-remove-if (lambda (e) (and (consp (cdr e)) (eq (cadr e) 'agentls-server)))
                              eglot-server-programs)))))

;;; Task bookkeeping

(defvar agentls--tasks nil
  "Alist of (TASK-ID . PLIST), newest first: :task :status :state :message
:review :result.")

(defvar agentls--progress nil
  "The current progress text of the newest running task, or nil.")

(defun agentls--task (id)
  (or (cdr (assoc id agentls--tasks))
      (let ((p (list :status "queued")))
        (push (cons id p) agentls--tasks)
        p)))

(defun agentls--put (id key value)
  (let ((cell (or (assoc id agentls--tasks)
                  (progn (agentls--task id) (assoc id agentls--tasks)))))
    (setcdr cell (plist-put (cdr cell) key value))))

(defun agentls--running-p (plist)
  (member (plist-get plist :status) '("queued" "running")))

(defun agentls--latest (&optional pred)
  "The id of the newest task whose plist satisfies PRED."
  (car (cl-find-if (lambda (cell) (or (null pred) (funcall pred (cdr cell))))
                   agentls--tasks)))

(defun agentls-tasks ()
  "The tasks this Emacs started or heard of, oldest first: (ID . PLIST)."
  (reverse agentls--tasks))

(defun agentls-mode-line ()
  "Progress text for the mode line: \"agentls t2: read_file a.go\" or \"\".
Use it as (:eval (agentls-mode-line)) in `mode-line-format' or
`global-mode-string'."
  (let ((id (agentls--latest #'agentls--running-p)))
    (if (not id)
        ""
      (let ((p (cdr (assoc id agentls--tasks))))
        (format "agentls %s%s: %s" id (agentls-autonomy p)
                (or agentls--progress (plist-get p :message)
                    (plist-get p :state) (plist-get p :status)))))))

(defun agentls-autonomy (p)
  "How commands are approved and the budget left for task plist P:
\" [sandboxed · 27 steps left]\", from agentls.info."
  (let ((approval (plist-get agentls--info :approval))
        (max-steps (or (plist-get agentls--info :maxSteps) 0))
        (max-cost (or (plist-get agentls--info :maxCostUSD) 0)))
    (if (not (stringp approval))
        ""
      (concat " [" approval
              (if (> max-steps 0) (format " · %d steps left" (max 0 (- max-steps (or (plist-get p :step) 0)))) "")
              (if (> max-cost 0)
                  (format " · $%.2f left" (max 0 (- max-cost (or (agentls--cost (plist-get p :usage) nil) 0))))
                "")
              "]"))))

;;; The conversation buffer

;; *agentls* is the stream and the conversation: the task's events are
;; rendered above a prompt line, and what the user types under it (any
;; number of lines) is sent with C-c C-c as a follow-up in the newest
;; task's session (agentls.continue).  Each task has one line that keeps
;; its running token total, context meter and cost; each tool call is one
;; line with its result appended.

(defvar agentls--text-open nil
  "Non-nil while the last output line of *agentls* is model text still streaming.")
(defvar-local agentls--out nil "Marker: where output goes (before the prompt).")
(defvar-local agentls--input nil "Marker: where the user's input starts.")
(defvar agentls--task-lines nil "Alist (TASK-ID . (MARKER . PLIST)) of task lines.")
(defvar agentls--pending-lines nil
  "Task lines written before their task had an id, oldest first: (MARKER . PLIST).")
(defvar agentls--last-id nil
  "The task whose line *agentls* got last: another task's line gets a label first.")
(defvar agentls--plans nil "Alist (TASK-ID . (MARKER . LINES)): where a task's plan is.")
(defvar agentls--outputs 0 "How many command outputs *agentls* holds (for their buttons).")
(defvar agentls--held nil "Alist (TASK-ID . TEXT): what a task streamed while another wrote last.")
(defvar agentls--call-ends nil "Alist (CALL-ID . MARKER): the end of a tool call's line.")
(defvar agentls--info nil "agentls.info: :contextTokens, :priceInput, :priceOutput.")

(defvar agentls-chat-mode-map
  (let ((m (make-sparse-keymap)))
    (define-key m (kbd "C-c C-c") #'agentls-send-input)
    (define-key m (kbd "C-c C-k") #'agentls-cancel)
    m)
  "Keys of the *agentls* conversation buffer.")

(define-derived-mode agentls-chat-mode text-mode "agentls"
  "Major mode of *agentls*: the task stream above, your follow-up below.
\\{agentls-chat-mode-map}"
  (setq-local truncate-lines nil))
(defalias 'agentls-stream-mode #'agentls-chat-mode)

(defconst agentls--prompt "──── follow-up (C-c C-c sends, C-c C-k cancels) ────\n")

(defun agentls-stream-buffer ()
  "The *agentls* buffer, created on first use."
  (or (get-buffer "*agentls*")
      (with-current-buffer (get-buffer-create "*agentls*")
        (agentls-chat-mode)
        (setq agentls--text-open nil agentls--task-lines nil agentls--call-ends nil
              agentls--pending-lines nil agentls--last-id nil agentls--plans nil)
        (let ((inhibit-read-only t))
          (insert (propertize agentls--prompt 'read-only t 'front-sticky t 'rear-nonsticky t
                              'face 'shadow)))
        (setq agentls--out (copy-marker (point-min) t))
        (setq agentls--input (copy-marker (point-max)))
        (current-buffer))))

(defun agentls--follow (buf)
  (dolist (w (get-buffer-window-list buf nil t))
    (with-current-buffer buf
      (when (< (window-point w) agentls--input)
        (set-window-point w (max (point-min) (1- agentls--out)))))))

(defun agentls--insert (text &optional streaming)
  "Add TEXT to the output of *agentls*.  STREAMING: continue the open text line.
Returns a marker at the start of the inserted text."
  (with-current-buffer (agentls-stream-buffer)
    (let ((inhibit-read-only t) start)
      (save-excursion
        (goto-char agentls--out)
        (when (and (not (and streaming agentls--text-open)) (not (bolp)))
          ;; After streaming text: step over the newline kept before the
          ;; follow-up separator rather than add another.
          (if (eq (char-after) ?\n)
              (progn (forward-char) (set-marker agentls--out (point)))
            (insert (propertize "\n" 'read-only t 'rear-nonsticky t))))
        (setq start (point-marker))
        (insert (propertize (concat text (if streaming "" "\n")) 'read-only t 'rear-nonsticky t))
        ;; Streaming text ends mid-line: the separator below it starts on
        ;; its own line, with the output marker kept before that newline.
        (when (and streaming (not (bolp)) (not (eq (char-after) ?\n)))
          (let ((p (point)))
            (insert (propertize "\n" 'read-only t 'rear-nonsticky t))
            (set-marker agentls--out p))))
      (setq agentls--text-open streaming)
      (agentls--follow (current-buffer))
      start)))

(defun agentls--line (fmt &rest args)
  (agentls--insert (apply #'format fmt args)))

(defun agentls--set-line (marker text)
  "Replace the line starting at MARKER with TEXT."
  (when (and marker (marker-buffer marker))
    (with-current-buffer (marker-buffer marker)
      (let ((inhibit-read-only t))
        (save-excursion
          (goto-char marker)
          (delete-region (point) (line-end-position))
          (insert (propertize text 'read-only t 'rear-nonsticky t))
          (set-marker marker (line-beginning-position)))))))

(defun agentls--call-args (call)
  (ignore-errors (json-parse-string (or (plist-get call :arguments) "") :object-type 'plist)))

(defun agentls--tool (call)
  "Render a tool CALL plist as \"name path\"."
  (let* ((name (or (plist-get call :name) "?"))
         (args (agentls--call-args call))
         (what (cl-some (lambda (k)
                          (let ((v (plist-get args k)))
                            (and (stringp v) (not (string-empty-p v)) v)))
                        '(:path :pattern :command))))
    (if what (format "%s %s" name what) name)))

(defun agentls--count-lines (s)
  (if (or (not (stringp s)) (string-empty-p s)) 0
    (+ (cl-count ?\n s) (if (string-suffix-p "\n" s) 0 1))))

(defun agentls--lines (n) (format "%d line%s" n (if (= n 1) "" "s")))

(defun agentls--size (call output)
  "What a tool did, in lines that match it: an edit's lines, not its reply's."
  (let ((args (agentls--call-args call))
        (name (plist-get call :name)))
    (cond ((and (equal name "edit_file") (stringp (plist-get args :new_string)))
           (format "%s → %s" (agentls--lines (agentls--count-lines (plist-get args :old_string)))
                   (agentls--lines (agentls--count-lines (plist-get args :new_string)))))
          ((and (equal name "write_file") (stringp (plist-get args :content)))
           (concat (agentls--lines (agentls--count-lines (plist-get args :content))) " written"))
          (t (agentls--lines (agentls--count-lines output))))))

(defun agentls--usage (u)
  (format "%s in / %s out" (or (plist-get u :inputTokens) 0)
          (or (plist-get u :outputTokens) 0)))

(defun agentls--first-line (s n)
  (let ((l (car (split-string (string-trim (or s "")) "\n"))))
    (if (> (length l) n) (concat (substring l 0 n) "…") (or l ""))))

(defun agentls-status-word (r)
  "How result (or task) plist R reads: checks still failing is never \"ok\"."
  (cond ((eq (plist-get r :cancelled) t) "cancelled")
        ;; agentls.status says when "ok" would mislead (undone, rejected,
        ;; awaiting review).
        ((and (stringp (plist-get r :outcome)) (not (string-empty-p (plist-get r :outcome))))
         (plist-get r :outcome))
        ((equal (plist-get r :reason) "verifyFailed") "done, checks failing")
        (t (or (plist-get r :status) "ended"))))

(defun agentls--cost (usage cost)
  (let ((p-in (or (plist-get agentls--info :priceInput) 0))
        (p-out (or (plist-get agentls--info :priceOutput) 0)))
    (cond ((and (numberp cost) (> cost 0)) cost)
          ((or (> p-in 0) (> p-out 0))
           (/ (+ (* (or (plist-get usage :inputTokens) 0) p-in)
                 (* (or (plist-get usage :outputTokens) 0) p-out))
              1e6)))))

(defun agentls--task-line-text (p)
  (let ((s (concat "▶ " (if (plist-get p :id) (concat (plist-get p :id) " ") "") (plist-get p :title)))
        (u (plist-get p :usage)))
    (when u
      (setq s (concat s "  · " (agentls--usage u) " tokens"))
      (let ((window (or (plist-get agentls--info :contextTokens) 0))
            (last (plist-get p :last)))
        (when (and last (> window 0))
          (setq s (concat s (format " · context %d%% of %dk"
                                    (round (* 100.0 (/ (float (or (plist-get last :inputTokens) 0)) window)))
                                    (round (/ window 1000.0)))))))
      (when-let ((c (agentls--cost u (plist-get p :cost))))
        (setq s (concat s (format " · $%.4f" c)))))
    s))

(defun agentls--begin-task (title &optional prompt)
  "Write a task line for TITLE before its task has an id; PROMPT is its task."
  (let ((l (cons (agentls--line "▶ %s" title) (list :title title :prompt prompt))))
    (setq agentls--pending-lines (append agentls--pending-lines (list l))
          agentls--last-id l)
    l))

(defun agentls--claim (id l)
  "Bind the waiting task line L to task ID."
  (setq agentls--pending-lines (delq l agentls--pending-lines))
  (push (cons id l) agentls--task-lines)
  (when (eq agentls--last-id l) (setq agentls--last-id id))
  l)

(defun agentls--task-line (id &optional prompt)
  "The task line of ID.  A task's first event names its PROMPT: it claims
the line written for that prompt, not whichever was written last."
  (or (cdr (assoc id agentls--task-lines))
      (let ((l (or (and prompt (cl-find prompt agentls--pending-lines
                                        :key (lambda (l) (plist-get (cdr l) :prompt)) :test #'equal))
                   (and (or (null prompt) (= (length agentls--pending-lines) 1))
                        (car agentls--pending-lines)))))
        (when l (agentls--claim id l)))))

(defun agentls--update-task-line (l &rest kv)
  (while kv
    (setcdr l (plist-put (cdr l) (car kv) (cadr kv)))
    (setq kv (cddr kv)))
  (agentls--set-line (car l) (agentls--task-line-text (cdr l))))

(defun agentls--render (ev)
  "Render one agentls/event plist EV into *agentls*."
  (let* ((id (plist-get ev :taskId))
         (kind (plist-get ev :kind))
         (prompt (and (stringp (plist-get ev :task)) (not (string-empty-p (plist-get ev :task)))
                      (plist-get ev :task)))
         (tl (agentls--task-line id prompt)))
    ;; A task this editor did not type (a code action's "Fix with
    ;; agentls"): the server's first event names its prompt.
    (when (and (not tl) prompt)
      (agentls--begin-task (replace-regexp-in-string "\n" " ⏎ " prompt) prompt)
      (setq tl (agentls--task-line id prompt))
      (unless (plist-get (agentls--task id) :task)
        (agentls--put id :task prompt)))
    (when (and tl (not (plist-get (cdr tl) :id)))
      (agentls--update-task-line tl :id id)) ; "▶ t3 …": the id labels and end lines use
    (cl-flet ((label ()
                (unless (equal agentls--last-id id)
                  ;; Another task wrote last: this one's lines go under its name.
                  (agentls--line "┄ %s%s" id (if tl (concat " · " (plist-get (cdr tl) :title)) ""))
                  (setq agentls--last-id id))))
      (cond
       ((and (equal kind "text") (stringp agentls--last-id) (not (equal agentls--last-id id)))
        ;; Another task streams: this one's text waits for whole lines, so
        ;; two tasks alternate by lines, not by the bytes of a delta.
        (let* ((h (concat (alist-get id agentls--held nil nil #'equal) (or (plist-get ev :text) "")))
               (cut (string-match "\n[^\n]*\\'" h)))
          (when cut
            (label)
            (agentls--line "%s" (substring h 0 cut))
            (setq h (substring h (1+ cut))))
          (setf (alist-get id agentls--held nil t #'equal) (if (string-empty-p h) nil h)))
        (setq kind nil))
       ((not (or (member kind '("usage" "state" "options" "commands"))
                 ;; A sub-agent's step with nothing to show writes nothing.
                 (and (equal kind "nested") (not (and (stringp (plist-get ev :line))
                                                      (not (string-empty-p (plist-get ev :line))))))))
        (when-let ((h (alist-get id agentls--held nil nil #'equal)))
          (label)
          (agentls--line "%s" h) ; its unfinished line, before what follows it
          (setf (alist-get id agentls--held nil t #'equal) nil))
        (label))))
    (pcase kind
      ("text" (agentls--insert (or (plist-get ev :text) "") t))
      ("state"
       (when (equal (plist-get ev :to) "verifying")
         (agentls--line "· %s %s" id (plist-get ev :to))))
      ("toolCall"
       (let* ((call (plist-get ev :call))
              (m (agentls--line "→ %s" (agentls--tool call))))
         (when (plist-get call :id)
           (with-current-buffer (marker-buffer m)
             (push (cons (plist-get call :id)
                         (save-excursion (goto-char m) (copy-marker (line-end-position))))
                   agentls--call-ends)))))
      ("toolResult"
       (let* ((call (plist-get ev :call))
              (out (or (plist-get ev :output) ""))
              (ran (and (stringp (plist-get ev :ran)) (not (string-empty-p (plist-get ev :ran)))
                        (plist-get ev :ran)))
              (what (cond (ran (concat (if (eq (plist-get ev :isError) t) "failed · " "") ran))
                          ((eq (plist-get ev :isError) t)
                           (concat "failed: " (agentls--first-line out 200)))
                          (t (format "ok (%s)" (agentls--size call out)))))
              (end (cdr (assoc (plist-get call :id) agentls--call-ends))))
         (if (and end (marker-buffer end))
             (with-current-buffer (marker-buffer end)
               (let ((inhibit-read-only t))
                 (save-excursion
                   (goto-char end)
                   (insert (propertize (concat " · " what) 'read-only t 'rear-nonsticky t)))))
           (agentls--line "← %s %s" (plist-get call :name) what))
         ;; A command: its output (the model's capped copy) under it,
         ;; hidden behind a button.
         (when (and ran (not (string-empty-p (string-trim out))))
           (agentls--output (split-string (string-trim out) "\n")))))
      ("nested"
       ;; A sub-agent's step, under the task (the server's one line).
       (let ((l (plist-get ev :line)))
         (when (and (stringp l) (not (string-empty-p l)))
           (agentls--line "    ↳ %s" l))))
      ("verify"
       (let ((v (plist-get ev :verify)))
         (agentls--line "%s checks %s: %s"
                        (if (eq (plist-get v :passed) t) "✓" "✗")
                        (if (eq (plist-get v :passed) t) "passed" "failed")
                        (or (plist-get v :summary) ""))
         ;; Why: the located problems, else the checks' first lines.
         ;; Beside another server, Flymake may hide agentls's diagnostic
         ;; as a repeat, so the conversation says it.
         (unless (eq (plist-get v :passed) t)
           (let* ((located (append (plist-get v :located) nil))
                  (why (or located
                           (and (stringp (plist-get v :feedback))
                                (split-string (string-trim (plist-get v :feedback)) "\n" t)))))
             (cl-loop for l in why for i from 1
                      if (> i 10) do (agentls--line "    … %d more" (- (length why) 10)) and return nil
                      else do (agentls--line "    %s" (agentls--first-line l 300)))))))
      ("usage"
       (when tl
         (agentls--update-task-line tl :usage (or (plist-get ev :taskUsage) (plist-get ev :usage))
                                    :last (plist-get ev :usage))))
      ((or "retry" "compaction" "budget" "notice")
       (agentls--line "· %s: %s" kind (or (plist-get ev :text) "")))
      ("plan"
       (let* ((p (plist-get ev :plan))
              (steps (append (plist-get p :plan) nil))
              (done (cl-count "completed" steps :key (lambda (s) (plist-get s :status)) :test #'equal))
              (lines (cons (format "· plan (%d of %d done)%s" done (length steps)
                                   (if (plist-get p :explanation)
                                       (concat ": " (agentls--first-line (plist-get p :explanation) 200)) ""))
                           (mapcar (lambda (s)
                                     (format "    %s %s"
                                             (pcase (plist-get s :status) ("completed" "[x]") ("in_progress" "[>]") (_ "[ ]"))
                                             (agentls--first-line (or (plist-get s :step) "") 200)))
                                   steps)))
              (old (cdr (assoc id agentls--plans))))
         (if (and old (marker-buffer (car old)) (= (length (cdr old)) (length lines)))
             ;; The same steps, their marks changed: updated where it is,
             ;; not printed again.
             (with-current-buffer (marker-buffer (car old))
               (save-excursion
                 (goto-char (car old))
                 (dolist (l lines)
                   (agentls--set-line (point-marker) l)
                   (forward-line 1)))
               (setcdr old lines))
           (let ((m (agentls--line "%s" (car lines))))
             (dolist (l (cdr lines)) (agentls--line "%s" l))
             (setf (alist-get id agentls--plans nil nil #'equal) (cons m lines))))))
      ("end"
       (let* ((r (plist-get ev :result))
              (files (append (plist-get r :filesChanged) nil)))
         (when tl
           (agentls--update-task-line tl :usage (or (plist-get r :usage) (plist-get (cdr tl) :usage))
                                      :cost (plist-get r :cost)))
         ;; "## Done" (a Markdown heading) reads "Done" in the summary line;
         ;; the server says how it ended in words (:ended).
         (let ((word (if (and (stringp (plist-get ev :ended)) (not (string-empty-p (plist-get ev :ended))))
                         (plist-get ev :ended)
                       (agentls-status-word r)))
               (msg (agentls--first-line
                     (replace-regexp-in-string
                      "\\`[ \t\n]*#+[ \t]*" ""
                      (if (eq (plist-get r :cancelled) t) ""
                        (or (plist-get r :summary) (plist-get r :error) "")))
                     120)))
           (if (string-empty-p msg)
               (agentls--line "■ %s %s" id word)
             (agentls--line "■ %s %s: %s" id word msg)))
         (when files
           (agentls--line "  files: %s" (string-join files ", ")))
         (agentls--line ""))))))

(defun agentls--output (lines)
  "Add a command's output LINES to *agentls*, hidden behind a button."
  (let* ((n (cl-incf agentls--outputs))
         (sym (intern (format "agentls-output-%d" n)))
         (label (format "    ▸ output (%s)" (agentls--lines (length lines))))
         (b (agentls--line "%s" label)))
    (with-current-buffer (marker-buffer b)
      (let ((inhibit-read-only t))
        (make-text-button b (+ b (length label))
                          'action (lambda (_) (agentls--toggle-output sym))
                          'agentls-output sym
                          'help-echo "show or hide the command's output")
        (add-to-invisibility-spec sym)))
    (let ((start (agentls--line "%s" (mapconcat (lambda (l) (concat "    │ " l)) lines "\n"))))
      (with-current-buffer (marker-buffer start)
        (let ((inhibit-read-only t))
          (put-text-property start agentls--out 'invisible sym))))))

(defun agentls--toggle-output (sym)
  "Show or hide the command output SYM in *agentls*."
  (with-current-buffer (agentls-stream-buffer)
    (if (assq sym (mapcar (lambda (x) (if (consp x) x (cons x nil))) buffer-invisibility-spec))
        (remove-from-invisibility-spec sym)
      (add-to-invisibility-spec sym))))

(defun agentls-toggle-output-at-point ()
  "Show or hide the output of the command whose button is at point."
  (interactive)
  (let ((sym (get-text-property (point) 'agentls-output)))
    (if sym (agentls--toggle-output sym) (user-error "agentls: no command output here"))))

;;; A task that needs you says so where you are

;; When the server asks a question (run a command, change a protected
;; file, run again with network), when a review task's changes wait for
;; you, or when a task ends, and *agentls* is not on screen, the echo area
;; says so (`message') and the mode line counts it: "agentls[1 needs
;; you]" until *agentls* is next on screen.  Nothing is said while
;; *agentls* is on screen: it shows it already.  No package is needed.

(defcustom agentls-mode-line-attention t
  "Non-nil: `global-mode-string' shows what needs you, e.g. \"agentls[1 needs you]\"."
  :type 'boolean)

(defvar agentls--asking nil "Alist (TASK-ID . QUESTION): questions the server waits on.")
(defvar agentls--unseen nil
  "Alist (TASK-ID . STATE): what was said while *agentls* was off screen.")
(defconst agentls--attention-entry
  '(:eval (let ((s (agentls-attention-mode-line))) (if (string-empty-p s) "" (concat s " ")))))

(defun agentls--on-screen-p ()
  "Non-nil when a window on a visible frame shows *agentls*."
  (let ((b (get-buffer "*agentls*")))
    (and b (get-buffer-window b 'visible))))

(defun agentls-attention-mode-line ()
  "\"agentls[1 needs you]\", \"agentls[1 needs you, 2 done]\": what
was said while *agentls* was off screen, and the questions waiting; \"\"
when nothing is (or *agentls* is on screen now, which clears it)."
  (when (and agentls--unseen (agentls--on-screen-p))
    (setq agentls--unseen nil))
  (let (counts)
    (dolist (cell agentls--unseen)
      (let ((state (if (assoc (car cell) agentls--asking) "needs you" (cdr cell))))
        (cl-incf (alist-get state counts 0 nil #'equal))))
    (dolist (cell agentls--asking)
      (unless (assoc (car cell) agentls--unseen)
        (cl-incf (alist-get "needs you" counts 0 nil #'equal))))
    (let ((parts (delq nil (mapcar (lambda (s) (when-let ((n (alist-get s counts nil nil #'equal)))
                                                 (format "%d %s" n s)))
                                   '("needs you" "failed" "done")))))
      (if parts (concat "agentls[" (string-join parts ", ") "]") ""))))

(defun agentls--raise (id state text)
  "Say that task ID (nil: no task) is in STATE, with TEXT, unless
*agentls* is on screen.  Returns non-nil when it said so."
  (unless (agentls--on-screen-p)
    (when id (setf (alist-get id agentls--unseen nil nil #'equal) state))
    (when (and agentls-mode-line-attention (not (member agentls--attention-entry global-mode-string)))
      ;; First, so a long mode line does not cut it off.
      (setq global-mode-string (cons agentls--attention-entry (or global-mode-string '("")))))
    (message "agentls: %s%s: %s" (if id (concat id " ") "") state text)
    (force-mode-line-update t)
    t))

(defun agentls--end-state (ev)
  "How end event EV reads in the task list's words, nil for a cancel."
  (let ((r (plist-get ev :result)))
    (cond ((or (eq (plist-get r :cancelled) t) (equal (plist-get r :status) "cancelled")) nil)
          ((or (equal (plist-get r :outcome) "awaiting review") (equal (plist-get ev :ended) "awaiting review"))
           "needs you")
          ((or (equal (plist-get r :status) "error") (equal (plist-get r :reason) "verifyFailed")) "failed")
          (t "done"))))

(defun agentls--ended (id ev)
  "Say where the user is that task ID ended (end event EV)."
  (setq agentls--asking (assoc-delete-all id agentls--asking))
  (when-let ((state (agentls--end-state ev)))
    (let* ((r (plist-get ev :result))
           (word (let ((w (plist-get ev :ended))) (if (and (stringp w) (not (string-empty-p w))) w (agentls-status-word r))))
           (msg (replace-regexp-in-string
                 "\\`[ \t]*#+[ \t]*" "" (agentls--first-line (or (plist-get r :summary) (plist-get r :error) "") 120))))
      (agentls--raise id state
                      (cond ((equal state "needs you")
                             "its changes wait for your review (M-x agentls-review-diff, agentls-accept, agentls-reject)")
                            ((equal state "done")
                             (if (member word '("ok" "done")) msg (format "(%s) %s" word msg)))
                            (t (if (string-empty-p msg) word (format "%s: %s" word msg))))))))

(defun agentls--question-task (question)
  "Guess the running task a server QUESTION is about, for a server that
does not name it (taskId): the one whose last tool call it names, else
the newest running one."
  (or (car (cl-find-if (lambda (cell)
                         (let ((m (plist-get (cdr cell) :message)))
                           (and (agentls--running-p (cdr cell)) (stringp m)
                                (string-match "\\`[^ ]+ \\(.+\\)\\'" m)
                                (string-search (match-string 1 m) question))))
                       agentls--tasks))
      (agentls--latest #'agentls--running-p)))

(defun agentls--asked (question &optional task-id)
  "Record and say that the server waits on QUESTION; returns its task id.
TASK-ID is the task the server names (the request's taskId); without
it, as from an older server, the task is guessed."
  (let ((id (if (and (stringp task-id) (not (string-empty-p task-id)))
                task-id
              (agentls--question-task question))))
    (when id (setf (alist-get id agentls--asking nil nil #'equal) question))
    (agentls--raise id "needs you" (agentls--first-line (replace-regexp-in-string "[ \t]*\n+[ \t]*" " " question) 200))
    id))

(defun agentls--answered (id)
  (setq agentls--asking (assoc-delete-all id agentls--asking))
  (force-mode-line-update t))

(defun agentls-waiting (id)
  "The question task ID waits on you to answer, or nil."
  (cdr (assoc id agentls--asking)))

(defvar agentls-event-hook nil
  "Functions called with each agentls/event plist, after it is rendered.")

(defun agentls--on-event (ev)
  "Track and render an agentls/event notification EV (a plist)."
  (let ((id (plist-get ev :taskId)))
    (agentls--task id)
    (when (and (numberp (plist-get ev :step)) (> (plist-get ev :step) (or (plist-get (agentls--task id) :step) 0)))
      (agentls--put id :step (plist-get ev :step)))
    (when (equal (plist-get ev :kind) "usage")
      (agentls--put id :usage (or (plist-get ev :taskUsage) (plist-get ev :usage))))
    (when (and (plist-get ev :session) (not (plist-get (agentls--task id) :session)))
      (agentls--put id :session (plist-get ev :session)))
    (pcase (plist-get ev :kind)
      ("state"
       (agentls--put id :state (plist-get ev :to))
       (when (equal (plist-get (agentls--task id) :status) "queued")
         (agentls--put id :status "running")))
      ("toolCall" (agentls--put id :message (agentls--tool (plist-get ev :call))))
      ("end"
       (let ((r (plist-get ev :result)))
         (agentls--put id :result r)
         (agentls--put id :status (plist-get r :status))
         (agentls--put id :state "idle")
         (setq agentls--progress nil))))
    (condition-case err
        (agentls--render ev)
      (error (message "agentls: rendering an event failed: %S" err)))
    (when (equal (plist-get ev :kind) "end")
      (agentls--ended id ev))
    (run-hook-with-args 'agentls-event-hook ev)
    (force-mode-line-update t)))

(defun agentls--on-progress (params)
  "Keep a $/progress PARAMS message for `agentls-mode-line'."
  (let ((value (plist-get params :value)))
    (pcase (plist-get value :kind)
      ((or "begin" "report")
       (when-let ((m (plist-get value :message))) (setq agentls--progress m)))
      ("end" (setq agentls--progress nil))))
  (force-mode-line-update t))

(cl-defmethod eglot-handle-notification
  ((_server agentls-server) (_method (eql agentls/event)) &rest ev)
  "Track and render an agentls/event notification."
  (agentls--on-event ev))

;; Eglot 1.9 neither advertises nor shows $/progress; agentls-server does
;; both for itself and leaves newer Eglots' own handling in place.
(cl-defmethod eglot-client-capabilities :around ((_server agentls-server))
  (let* ((caps (cl-call-next-method))
         (window (plist-get caps :window)))
    (unless (plist-get window :workDoneProgress)
      (setq window (plist-put window :workDoneProgress t)))
    ;; Eglot answers window/showMessageRequest in the minibuffer but 1.9
    ;; does not say so, and the server asks (trust a workspace file,
    ;; change a protected file, run again with network) only a client
    ;; that says it can.
    (unless (plist-get window :showMessage)
      (setq window (plist-put window :showMessage (list :messageActionItem
                                                        (list :additionalPropertiesSupport :json-false)))))
    (plist-put caps :window window)))

(cl-defmethod eglot-handle-request :around
  ((server agentls-server) (method (eql window/showMessageRequest)) &rest args)
  "Say which task waits on the question, then let Eglot ask it.
Eglot is given the standard members only: 1.9's handler takes exactly
:type, :message and :actions and fails on the task's id (taskId)."
  (let ((id (agentls--asked (or (plist-get args :message) "") (plist-get args :taskId)))
        (std (list :type (plist-get args :type) :message (plist-get args :message)
                   :actions (plist-get args :actions))))
    (unwind-protect (apply #'cl-call-next-method server method std)
      (agentls--answered id))))

(cl-defmethod eglot-handle-request
  ((_server agentls-server) (_method (eql window/workDoneProgress/create)) &rest _)
  "Accept a progress token."
  nil)

(cl-defmethod eglot-handle-notification
  ((_server agentls-server) (_method (eql $/progress)) &key _token value)
  "Keep the task's progress message for `agentls-mode-line'."
  (agentls--on-progress (list :value value))
  ;; Eglot's catch-all (1.9) or its progress reporter (newer) is next.
  (cl-call-next-method))

;;; Commands

(defun agentls--server ()
  "agentls's own connection (`agentls-connect') for this buffer, else
the agentls Eglot server of this buffer or of any buffer."
  (let ((own (agentls-connection-for))
        (s (ignore-errors (eglot-current-server))))
    (if (and own (jsonrpc-running-p own))
        own
    (if (and s (cl-typep s 'agentls-server))
        s
      (or (cl-loop for servers being the hash-values of eglot--servers-by-project
                   thereis (cl-find-if (lambda (x) (cl-typep x 'agentls-server)) servers))
          (user-error "agentls: no agentls server; M-x agentls-connect (or see `agentls-eglot-setup')"))))))

(defun agentls--flush (server)
  "Send SERVER the buffer changes Eglot (or agentls-conn) still holds back."
  (if (cl-typep server 'agentls-connection)
      (agentls-flush)
  (when (and agentls-flush-changes (fboundp 'eglot--signal-textDocument/didChange))
    (dolist (b (eglot--managed-buffers server))
      (with-current-buffer b
        (ignore-errors (eglot--signal-textDocument/didChange)))))))

(defun agentls--drain (server)
  "Read the messages SERVER sent after the reply `jsonrpc-request' took.
jsonrpc 1.0.x (Emacs 28) leaves the rest of a read unparsed when a
reply ends a synchronous request, so a server request that came in
the same read (workDoneProgress/create, applyEdit) would wait for
the server's next output, which never comes while the server waits."
  (let ((proc (and (fboundp 'jsonrpc--process) (ignore-errors (jsonrpc--process server)))))
    (when (and proc (process-live-p proc) (fboundp 'jsonrpc--process-filter))
      (jsonrpc--process-filter proc ""))))

(defun agentls-command (command &optional args)
  "Run agentls COMMAND (a string) with ARGS (a plist) and return its result."
  (let ((server (agentls--server)))
    (agentls--flush server)
    (unwind-protect
        (jsonrpc-request server :workspace/executeCommand
                         (list :command command
                               :arguments (vector (or args (make-hash-table)))))
      (agentls--drain server))))

(defun agentls--uri (&optional buffer)
  (when-let ((f (buffer-file-name (or buffer (current-buffer)))))
    (agentls--path-to-uri f)))

(defcustom agentls-model nil
  "llm.model for the next tasks (set by `agentls-pick-model'); nil: the server's."
  :type '(choice (const nil) string))

(defun agentls--refresh-info ()
  (setq agentls--info (ignore-errors (agentls-command "agentls.info" (if agentls-model (list :model agentls-model) nil)))))

;;;###autoload
(defun agentls-run (task &optional review beg end session isolation)
  "Run TASK with agentls, about the current file and the region (BEG END).
REVIEW: the changes are proposed for review instead of applied (see
`agentls-run-review').  SESSION: continue that session (agentls.continue).
ISOLATION \"worktree\": in a git worktree of its own, whatever
agent.isolation says; interactively, with a prefix argument.
\"@path\" and \"@path:10-40\" in TASK attach a file or lines of it.
Returns the task id."
  (interactive
   (let ((wt (and current-prefix-arg "worktree")))
     (append (list (agentls-read-task (if wt "agentls task (in a worktree; C-j: new line): "
                                        "agentls task (C-j: new line): "))
                   nil)
             (if (use-region-p) (list (region-beginning) (region-end)) (list nil nil))
             (list nil wt))))
  (when (string-empty-p (string-trim task))
    (user-error "agentls: the task is empty"))
  (let ((args (list :task task))
        (server (agentls--server)))
    (when-let ((uri (and buffer-file-name (agentls--uri))))
      (setq args (plist-put args :uri uri)))
    (when (and beg end)
      (setq args (plist-put args :range
                            (if (cl-typep server 'agentls-connection)
                                (list :start (agentls--point-to-lsp beg) :end (agentls--point-to-lsp end))
                              (list :start (eglot--pos-to-lsp-position beg)
                                    :end (eglot--pos-to-lsp-position end))))))
    (when review (setq args (plist-put args :review t)))
    (when isolation (setq args (plist-put args :isolation isolation)))
    (when session (setq args (plist-put args :session session)))
    (when agentls-model (setq args (plist-put args :model agentls-model)))
    (unless agentls--info (agentls--refresh-info))
    (when agentls-display-stream
      (agentls--display (agentls-stream-buffer)))
    ;; Before the request: the task's first events may beat its answer.
    (let* ((line (agentls--begin-task (concat (if session "↳ " "")
                                              (replace-regexp-in-string "\n" " ⏎ " task)
                                              (cond ((equal isolation "worktree") "  [worktree]")
                                                    (review "  [review]")
                                                    (t "")))
                                      task))
           (res (condition-case err
                    (agentls-command (if session "agentls.continue" "agentls.run") args)
                  (error (setq agentls--pending-lines (delq line agentls--pending-lines))
                         (signal (car err) (cdr err)))))
           (id (plist-get res :taskId)))
      (unless (assoc id agentls--task-lines)
        (agentls--claim id line))
      (agentls--task id)
      (agentls--put id :session (plist-get res :session))
      (agentls--put id :task task)
      (agentls--put id :review (and review t))
      (when (equal (plist-get (agentls--task id) :status) "queued")
        (agentls--put id :status "running"))
      (message "agentls: started %s" id)
      id)))

(defvar agentls-task-minibuffer-map
  (let ((m (make-sparse-keymap)))
    (set-keymap-parent m minibuffer-local-map)
    (define-key m (kbd "C-j") #'newline)
    (define-key m (kbd "S-<return>") #'newline)
    m)
  "Minibuffer keys while typing a task: C-j and S-RET insert a new line,
RET sends.")

(defvar agentls--task-history nil "Tasks typed at `agentls-read-task'.")

(defun agentls-read-task (prompt)
  "Read a task in the minibuffer with PROMPT: it may span lines (C-j)."
  (read-from-minibuffer prompt nil agentls-task-minibuffer-map nil 'agentls--task-history))

;;;###autoload
(defun agentls-verify ()
  "Run the project's checks alone, no model (agentls.verify).
A task like the others: its end shows in *agentls*, and failing checks
are diagnostics.  Returns the task id."
  (interactive)
  (when agentls-display-stream
    (agentls--display (agentls-stream-buffer)))
  (let* ((line (agentls--begin-task "verify: the project's checks"))
         (res (agentls-command "agentls.verify" nil))
         (id (plist-get res :taskId)))
    (unless (assoc id agentls--task-lines)
      (agentls--claim id line))
    (agentls--task id)
    (agentls--put id :task "verify")
    (when (equal (plist-get (agentls--task id) :status) "queued")
      (agentls--put id :status "running"))
    (message "agentls: verifying (%s)" id)
    id))

;;;###autoload
(defun agentls-doctor (&optional directory)
  "Run `agentls doctor' on the project around DIRECTORY (default: here).
It checks what a task needs, with `agentls-initialization-options' as
the editor's settings: the key (never shown), the endpoint and whether
the model takes a request with a tool, the sandbox, trust, the state
directory and the editors' plugins.  The report is shown in
*agentls-doctor*; returns agentls doctor's exit status (0 a task can
run, 1 it could not, 3 it runs but the sandbox is unavailable)."
  (interactive)
  (let* ((default-directory (file-name-as-directory (expand-file-name (or directory default-directory))))
         (settings (and agentls-initialization-options
                        (let ((json-false :json-false)) (json-encode agentls-initialization-options))))
         (buf (get-buffer-create "*agentls-doctor*"))
         (status nil))
    (with-current-buffer buf
      (let ((inhibit-read-only t))
        (erase-buffer)
        (setq status (apply #'call-process (car (or (agentls--program t) agentls-program)) nil t nil
                            "doctor" (and settings (list "--settings" settings))))
        (goto-char (point-min)))
      (special-mode))
    (when (called-interactively-p 'any)
      (display-buffer buf))
    (message "agentls doctor: %s"
             (pcase status
               (0 "a task can run here")
               (1 "a task could not run here: see *agentls-doctor*")
               (3 "the sandbox is unavailable here: see *agentls-doctor*")
               (_ (format "exit %s: see *agentls-doctor*" status))))
    status))

;;;###autoload
(defun agentls-cancel (&optional task-id)
  "Cancel TASK-ID, else the newest running task."
  (interactive)
  (let* ((id (or task-id (agentls--latest #'agentls--running-p)))
         (res (agentls-command "agentls.cancel" (and id (list :taskId id)))))
    (message (if (eq (plist-get res :cancelled) t)
                 (format "agentls: cancelling %s" (or (plist-get res :taskId) id))
               "agentls: no running task to cancel"))
    res))

(defun agentls--status-line (tk)
  (concat (format "%s %-9s %s" (plist-get tk :taskId) (agentls-status-word tk)
                  (plist-get tk :task))
          (let ((n (length (plist-get tk :filesChanged))))
            (if (> n 0) (format "  [%d file%s]" n (if (= n 1) "" "s")) ""))
          (format "  tokens %s" (agentls--usage (plist-get tk :usage)))
          (cond ((plist-get tk :summary)
                 (concat "\n    " (agentls--first-line (plist-get tk :summary) 200)))
                ((plist-get tk :error) (concat "\n    error: " (plist-get tk :error)))
                (t ""))
          (if (plist-get tk :transcript)
              (concat "\n    transcript: " (plist-get tk :transcript))
            "")))

;;;###autoload
(defun agentls-status (&optional task-id)
  "Show the server's tasks (or TASK-ID) and return the result."
  (interactive)
  (let* ((res (agentls-command "agentls.status" (and task-id (list :taskId task-id))))
         (tasks (if (plist-member res :tasks) (append (plist-get res :tasks) nil)
                  (list res))))
    (message "%s" (if tasks (mapconcat #'agentls--status-line tasks "\n")
                    "agentls: no tasks yet"))
    res))

(defun agentls--review-target (task-id)
  (or task-id
      (agentls--latest (lambda (p) (and (plist-get p :review)
                                        (not (agentls--running-p p)))))
      (agentls--latest (lambda (p) (not (agentls--running-p p))))
      (user-error "agentls: no finished task")))

;;;###autoload
(defun agentls-accept (&optional this-file task-id)
  "Accept the proposals of the newest review task (or TASK-ID).
With a prefix argument (THIS-FILE), only those in the current file."
  (interactive "P")
  (let* ((id (agentls--review-target task-id))
         (args (list :taskId id)))
    (when this-file (setq args (plist-put args :uri (agentls--uri))))
    (let ((res (agentls-command "agentls.accept" args)))
      (message "agentls: %s %s%s" (if (eq (plist-get res :applied) t) "accepted" "did not accept") id
               (if (plist-get res :reason) (concat ": " (plist-get res :reason)) ""))
      (agentls--changed)
      res)))

;;;###autoload
(defun agentls-reject (&optional this-file task-id)
  "Reject the proposals of the newest review task (or TASK-ID).
With a prefix argument (THIS-FILE), only those in the current file."
  (interactive "P")
  (let* ((id (agentls--review-target task-id))
         (args (list :taskId id)))
    (when this-file (setq args (plist-put args :uri (agentls--uri))))
    (let ((res (agentls-command "agentls.reject" args)))
      (message "agentls: rejected %s%s" id
               (if (plist-get res :reason) (concat ": " (plist-get res :reason)) ""))
      (agentls--changed)
      res)))

(defun agentls--changed ()
  "Redraw the review buffers after an accept, reject, merge or discard:
no view shows what is gone."
  (dolist (b (buffer-list))
    (when (and (buffer-live-p b) (boundp 'agentls--review-task)
               (buffer-local-value 'agentls--review-task b)
               (fboundp 'agentls-review-refresh))
      (with-current-buffer b
        (ignore-errors (agentls-review-refresh))))))

(defun agentls--in-order (candidates)
  "A completion table of CANDIDATES that keeps their order (newest first)
instead of sorting them."
  (lambda (string pred action)
    (if (eq action 'metadata)
        '(metadata (display-sort-function . identity) (cycle-sort-function . identity))
      (complete-with-action action candidates string pred))))

(defun agentls-state-word (tk)
  "Task TK's state in the task list: running, needs you, done or failed.
A running task that waits on your answer needs you."
  (cond ((and (member (plist-get tk :status) '("queued" "running")) (agentls-waiting (plist-get tk :taskId)))
         "needs you")
        ((member (plist-get tk :status) '("queued" "running")) "running")
        ((equal (plist-get tk :outcome) "awaiting review") "needs you")
        ((member (plist-get tk :status) '("error")) "failed")
        ((equal (plist-get tk :reason) "verifyFailed") "failed")
        (t "done")))

;;; Undo

(defun agentls-undo-candidates ()
  "The server's tasks that agentls.undo can revert now, newest first.
A task with no changes (or undone already) is never one."
  (reverse (cl-remove-if-not (lambda (tk) (eq (plist-get tk :undoable) t))
                             (append (plist-get (agentls-command "agentls.status") :tasks) nil))))

(defun agentls--undo-text (id res)
  "What undoing ID answered (RES), as a sentence."
  (let ((where (mapconcat (lambda (c)
                            (format "%s:%d" (file-name-nondirectory (agentls--uri-to-path (or (plist-get c :uri) "")))
                                    (1+ (or (plist-get c :line) 0))))
                          (append (plist-get res :conflicts) nil) ", ")))
    (cond ((and (eq (plist-get res :applied) t) (not (string-empty-p where)))
           (format "agentls: undid %s except where the files changed since: %s" id where))
          ((eq (plist-get res :applied) t) (format "agentls: undid %s" id))
          (t (format "agentls: did not undo %s: %s" id
                     (or (plist-get res :reason) (and (not (string-empty-p where)) where) "nothing to undo"))))))

;;;###autoload
(defun agentls-undo (&optional task-id)
  "Undo what task TASK-ID applied.
Without TASK-ID, ask which task: those with changes to undo, newest
first.  A refusal is shown with the server's reason; returns the answer."
  (interactive)
  (let* ((id (or task-id
                 (let* ((cands (agentls-undo-candidates))
                        (labels (mapcar (lambda (tk) (cons (agentls--history-label tk) tk)) cands)))
                   (unless cands (user-error "agentls: no task has changes to undo"))
                   (plist-get (cdr (assoc (completing-read "agentls: undo which task? " labels nil t) labels))
                              :taskId))))
         (res (condition-case err
                  (agentls-command "agentls.undo" (list :taskId id))
                (jsonrpc-error (list :applied :json-false
                                     :reason (or (alist-get 'jsonrpc-error-message (cdr err)) "no answer"))))))
    (message "%s" (agentls--undo-text id res))
    (when (eq (plist-get res :applied) t)
      (agentls--refresh-task-diffs id))
    res))

;;;###autoload
(defun agentls-open-transcript (&optional task-id)
  "Open the Markdown transcript of TASK-ID (default: the newest task).
Returns its buffer."
  (interactive)
  (let* ((id (or task-id (agentls--latest) (user-error "agentls: no task yet")))
         (res (agentls-command "agentls.status" (list :taskId id)))
         (uri (plist-get res :transcript)))
    (unless uri (user-error "agentls: no transcript for %s" id))
    (find-file-other-window (agentls--uri-to-path uri))
    (current-buffer)))

;;;###autoload
(defun agentls-show-stream ()
  "Show the *agentls* event stream."
  (interactive)
  (agentls--display (agentls-stream-buffer))
  (agentls-attention-mode-line) ; on screen now: what it shows is seen
  (force-mode-line-update t))

;;;###autoload
(defun agentls-run-command (name &optional args)
  "Run the project command NAME (.agentls/commands/NAME.md) with ARGS.
Interactively, pick it from the server's list (agentls.commands, each
shown with its argument hint and description) and type its arguments.
It runs as the task \"/NAME ARGS\"; the server expands it.  Returns the
task id."
  (interactive
   (let* ((res (agentls-command "agentls.commands"))
          (cmds (append (plist-get res :commands) nil))
          (table (mapcar (lambda (c) (cons (plist-get c :name) c)) cmds)))
     (when (and (stringp (plist-get res :error)) (not (string-empty-p (plist-get res :error))))
       (message "agentls: %s" (plist-get res :error)))
     (unless cmds (user-error "agentls: this project has no commands (Markdown files in .agentls/commands/)"))
     (let* ((completion-extra-properties
             (list :annotation-function
                   (lambda (n)
                     (let ((c (cdr (assoc n table))))
                       (concat (when (plist-get c :argumentHint) (concat " " (plist-get c :argumentHint)))
                               (when (plist-get c :description) (concat "  — " (plist-get c :description))))))))
            (name (completing-read "agentls command: /" table nil t))
            (c (cdr (assoc name table))))
       (list name (read-string (format "/%s %s: " name (or (plist-get c :argumentHint) "")))))))
  (agentls-run (string-trim (concat "/" name " " (or args "")))))

;;;###autoload
(defun agentls-task-diff (&optional task-id)
  "Show what TASK-ID applied (default: the newest task that changed files)
as the server's unified diff (agentls.diff) in `diff-mode'.  A review
task's proposals are in `agentls-review-diff'.  Returns the buffer."
  (interactive)
  (let* ((res (agentls-command "agentls.diff" (and task-id (list :taskId task-id))))
         (diff (or (plist-get res :diff) "")))
    (when (string-empty-p diff)
      (user-error "agentls: %s" (or (plist-get res :reason) "nothing to show")))
    (let ((buf (get-buffer-create (format "*agentls diff %s*" (plist-get res :taskId))))
          (root (ignore-errors (agentls-connection-root (agentls-connection-for)))))
      (with-current-buffer buf
        (agentls--fill-task-diff res)
        (when root (setq default-directory root))
        (goto-char (point-min)))
      (display-buffer buf)
      buf)))

(defvar-local agentls--diff-task nil "The task whose applied diff this buffer shows.")

(defun agentls--fill-task-diff (res)
  "Fill this buffer with agentls.diff's answer RES, or say nothing is left."
  (let ((inhibit-read-only t)
        (diff (or (plist-get res :diff) "")))
    (erase-buffer)
    (insert (if (string-empty-p diff)
                (format "# agentls task %s: nothing it applied is left (%s)\n"
                        (plist-get res :taskId) (or (plist-get res :reason) "undone"))
              diff))
    (diff-mode)
    (setq agentls--diff-task (plist-get res :taskId))
    (setq buffer-read-only t)))

(defun agentls--refresh-task-diffs (id)
  "Redraw the applied-diff buffers of task ID from the server now: after
an undo they show what is left, or say nothing is."
  (dolist (b (buffer-list))
    (when (equal (buffer-local-value 'agentls--diff-task b) id)
      (let ((res (ignore-errors (agentls-command "agentls.diff" (list :taskId id)))))
        (when res
          (with-current-buffer b
            (save-excursion (agentls--fill-task-diff res))))))))

(defvar agentls-command-map
  (let ((m (make-sparse-keymap)))
    (define-key m "/" #'agentls-run-command)
    (define-key m "D" #'agentls-task-diff)
    (define-key m "r" #'agentls-run)
    (define-key m "c" #'agentls-cancel)
    (define-key m "v" #'agentls-verify)
    (define-key m "?" #'agentls-doctor)
    (define-key m "s" #'agentls-status)
    (define-key m "a" #'agentls-accept)
    (define-key m "x" #'agentls-reject)
    (define-key m "u" #'agentls-undo)
    (define-key m "w" #'agentls-rewind)
    (define-key m "W" #'agentls-worktrees)
    (define-key m "g" #'agentls-delegate)
    (define-key m "j" #'agentls-jobs)
    (define-key m "l" #'agentls-show-stream)
    (define-key m "t" #'agentls-open-transcript)
    (define-key m "R" #'agentls-run-review)
    (define-key m "f" #'agentls-continue)
    (define-key m "h" #'agentls-history)
    (define-key m "m" #'agentls-pick-model)
    (define-key m "d" #'agentls-review-diff)
    (define-key m "." #'agentls-code-actions)
    m)
  "Keys for the agentls commands; bind it to a prefix, e.g.
\(global-set-key (kbd \"C-c a\") agentls-command-map).")
(fset 'agentls-command-map agentls-command-map)

(require 'agentls-review)
(require 'agentls-rewind)
(require 'agentls-worktrees)
(require 'agentls-jobs)

(provide 'agentls)
;;; agentls.el ends here
